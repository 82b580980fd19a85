// The training report: curves read from a run's metrics.jsonl and a self-contained HTML page that
// shows them (inline CSS and SVG, no script, nothing loaded from the network or from disk).
//
// metrics.jsonl holds one JSON object per line, written by nmt::train (see train/trainer.cpp), with
// "event" one of "start", "train" {epoch, step, loss, lr, tgt_tokens_per_s, train_seconds, time},
// "epoch" {epoch, step, train_loss, valid_loss?, valid_ppl?, train_seconds, is_best, time},
// "average", "end" {reason, message, step, train_seconds, ...}, and later "eval" {data, checkpoint,
// decoding, notebook_form, bleu, chrf, loss, perplexity} from `nmt eval`.
//
// Torch-free; never throws on any record (fields that are missing or of the wrong type are skipped);
// never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nmt::viz {

// One curve of the report: point i is (steps[i] or seconds[i], values[i]); the three have one length.
struct Curve {
  std::string name;
  std::vector<double> steps;    // training step of the point
  std::vector<double> seconds;  // training time of the point (train_seconds)
  std::vector<double> values;
};

// The curves in metrics.jsonl records, in this order and only those with points:
//  - "train loss": one point per "train" record with a numeric "loss";
//  - "valid loss": one point per "epoch" record with a numeric "valid_loss";
//  - "BLEU": one point per record with a numeric "bleu".
// Points keep the order of the records: a resumed run that logs a step twice gives two points. A
// record without "step" or "train_seconds" takes the last value seen in an earlier record (0 at first).
std::vector<Curve> training_curves(const std::vector<nlohmann::json>& records);

// What the training report shows.
struct ReportInput {
  std::string title;      // e.g. the run directory
  nlohmann::json config;  // the run's resolved configuration (sections data/text/model/train/decode)
  std::vector<nlohmann::json> records;  // metrics.jsonl, in order
};

// The report page (UTF-8): a summary (steps, epochs, training time, best validation loss, BLEU and
// chrF of the latest evaluation), the loss curves against steps and against training time, and the
// BLEU curve when evaluations were made at two or more different steps (SVG with axes, ticks and
// legends; evaluations of one model with different decoders are no curve), the epochs, every
// evaluation and the configuration as tables. With no training records the page says so in place
// of the charts. All text is escaped.
std::string render_report_html(const ReportInput& input);

}  // namespace nmt::viz
