// The training report: curves from a run's metrics records (nmt/metrics_jsonl.h: written by the
// trainer and `nmt eval`) and a self-contained HTML page that shows them (inline CSS and SVG, no
// script, nothing loaded from the network or from disk).
//
// Torch-free; never throws on any record; never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/metrics_jsonl.h"

namespace nmt::viz {

// What a curve shows: the report picks its curves by kind and labels them by name.
enum class CurveKind { kTrainLoss, kValidLoss, kEvalBleu, kValidBleu, kValidChrf };

// One curve of the report: point i is (steps[i] or seconds[i], values[i]); the three have one
// length.
struct Curve {
  CurveKind kind;
  std::string name;             // its legend
  std::vector<double> steps;    // training step of the point
  std::vector<double> seconds;  // training time of the point (train_seconds)
  std::vector<double> values;
};

// The curves in metrics records, in this order and only those with points:
//  - kTrainLoss, "train loss": one point per TrainRecord;
//  - kValidLoss, "valid loss": one point per EpochRecord or ValidRecord with a valid_loss;
//  - kEvalBleu, "BLEU": one point per EvalRecord;
//  - kValidBleu, "valid BLEU" and kValidChrf, "valid chrF": as valid loss, with those scores.
// Points keep the order of the records: a resumed run that logs a step twice gives two points. A
// record without a step or training time (eval, average) takes the last one seen before it (0 at
// first).
std::vector<Curve> training_curves(const std::vector<MetricsRecord>& records);

// What the training report shows.
struct ReportInput {
  std::string title;  // e.g. the run directory
  nlohmann::json
      config;  // the run's resolved configuration (sections data/text/model/train/decode)
  std::vector<MetricsRecord> records;  // metrics.jsonl, in order
};

// The report page (UTF-8): a summary (steps, epochs, training time, best validation loss, BLEU and
// chrF of the latest evaluation), the loss curves against steps and against training time, and the
// BLEU curve when evaluations were made at two or more different steps (SVG with axes, ticks and
// legends; evaluations of one model with different decoders are no curve), the epochs, every
// evaluation, the evaluations' BLEU and chrF by source length and the configuration as tables. With
// no training records the page says so in place of the charts. All text is escaped.
std::string render_report_html(const ReportInput& input);

}  // namespace nmt::viz
