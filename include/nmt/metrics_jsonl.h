// RUN/metrics.jsonl: one JSON object per line for every log record of a run, as typed records.
// The trainer writes start/train/epoch/valid/average/end records, `nmt eval` writes eval records,
// and the report reads them all back through the same field lists, so a renamed key cannot silently
// empty a chart. Records are appended and flushed as they happen, so a crash loses nothing logged.
//
//   {"event": "train", "epoch": 1, "step": 50, "loss": 5.1, "lr": 0.001, ..., "time": 1.7e9}
//
// Every record carries "time" (Unix seconds, set when written). A line that is not JSON, has an
// unknown "event" or lacks a field of its kind is skipped by read_metrics and counted, never fatal.
// Torch-free; throws nmt::Error when the file cannot be opened for appending; never logs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace nmt {

// A training session began (fresh or resumed).
struct StartRecord {
  int64_t epoch = 0;  // epochs completed before this session
  int64_t step = 0;
  int64_t train_pairs = 0;
  int64_t valid_pairs = 0;
  std::string device;  // "cpu", "cuda:0"
  double time = 0.0;
  // The processor's name and the threads training uses ("AMD EPYC 9B14, 2 threads"); absent in
  // records written before it existed.
  std::optional<std::string> processor{};
};

// The mean loss of the last log_every steps.
struct TrainRecord {
  int64_t epoch = 0;  // 1-based epoch the step belongs to
  int64_t step = 0;
  double loss = 0.0;  // label-smoothed, per target token
  double lr = 0.0;
  double tgt_tokens_per_s = 0.0;
  double train_seconds = 0.0;  // training time so far
  double rss_mib = 0.0;        // resident memory
  double time = 0.0;
};

// An epoch ended and was validated.
struct EpochRecord {
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;
  double train_loss = 0.0;
  double lr = 0.0;
  double train_seconds = 0.0;
  int64_t target_tokens = 0;  // real target tokens trained on so far
  bool is_best = false;       // best.pt was written
  double validation_seconds = 0.0;
  std::optional<double> valid_loss{};  // absent without a validation split, or with valid_every
  std::optional<double> valid_ppl{};
  std::optional<double> valid_bleu{};  // absent when validation does not translate
  std::optional<double> valid_chrf{};
  double time = 0.0;
};

// A validation between epoch ends (train.valid_every).
struct ValidRecord {
  int64_t epoch = 0;  // 1-based epoch the step belongs to
  int64_t step = 0;
  double train_seconds = 0.0;
  bool is_best = false;  // best.pt was written
  double validation_seconds = 0.0;
  double valid_loss = 0.0;
  double valid_ppl = 0.0;
  std::optional<double> valid_bleu{};
  std::optional<double> valid_chrf{};
  double time = 0.0;
};

// The mean of the last epochs' weights was validated (train.average_last).
struct AverageRecord {
  int64_t checkpoints = 0;
  double valid_loss = 0.0;
  double valid_ppl = 0.0;
  bool kept = false;  // averaged.pt was written
  double time = 0.0;
};

// Training stopped.
struct EndRecord {
  std::string reason;   // finished, early_stopped, step_limit, interrupted, diverged, time_limit
  std::string message;  // the sentence shown to the user
  int64_t epoch = 0;    // epochs completed
  int64_t step = 0;
  double train_seconds = 0.0;
  std::optional<double> best_valid_loss{};   // with best_metric "loss"
  std::optional<std::string> best_metric{};  // "loss", "bleu" or "chrf"
  std::optional<double> best_score{};        // of best.pt, in best_metric
  std::optional<double> best_step{};         // the step best.pt was saved at
  double time = 0.0;
  // Where in the unfinished epoch training stopped: its next batch (0 at an epoch's end). Absent
  // in records written before it existed.
  std::optional<int64_t> batch{};
};

// BLEU and chrF of the evaluated sentences whose source length falls in one range.
struct LengthScore {
  std::string words;  // "0-5", "6-10", "11-15", "16-30", "31+": whitespace words of the source
  int64_t sentences = 0;
  std::optional<double> bleu{};  // absent when no sentence falls in the range
  std::optional<double> chrf{};
};

// `nmt eval` scored a model.
struct EvalRecord {
  std::string data;        // "test split of RUN" or the source file
  std::string checkpoint;  // the weights' file
  std::string decoding;    // "greedy", "beam 5, length penalty 1", ...
  bool notebook_form = false;
  double bleu = 0.0;
  double chrf = 0.0;
  double loss = 0.0;
  double perplexity = 0.0;
  double time = 0.0;
  // By source length, shortest first; empty in records written before it existed.
  std::vector<LengthScore> by_source_length{};
  // sacreBLEU's signatures of the scores; absent in records written before they existed.
  std::optional<std::string> bleu_signature{};
  std::optional<std::string> chrf_signature{};
};

using MetricsRecord = std::variant<StartRecord,
                                   TrainRecord,
                                   EpochRecord,
                                   AverageRecord,
                                   EndRecord,
                                   EvalRecord,
                                   ValidRecord>;

// {"event": ..., fields...}; absent optional fields are left out.
nlohmann::json to_json(const MetricsRecord& record);
// The record a JSON object holds; nullopt when it is not an object, its event is unknown or a
// field of its kind is missing or of the wrong type.
std::optional<MetricsRecord> record_from_json(const nlohmann::json& json);

// "train", "epoch", ... of a record.
const char* event_name(const MetricsRecord& record);

// Appends records to a metrics file.
class MetricsLog {
 public:
  // Opens path for appending (a resumed run continues the same file).
  explicit MetricsLog(const std::string& path);

  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  // Appends record, with its "time" set to now, as one line. A write that fails (disk full) is
  // cut back to the previous end of the file, so the file keeps whole lines, and throws
  // nmt::Error naming the file and the reason.
  void write(MetricsRecord record);

 private:
  std::string path_;
  int fd_ = -1;
};

struct MetricsFile {
  std::vector<MetricsRecord> records;      // in file order
  std::vector<std::size_t> skipped_lines;  // 1-based numbers of lines that held no record
};

// Reads a metrics file; a missing file reads as no records.
MetricsFile read_metrics(const std::string& path);

}  // namespace nmt
