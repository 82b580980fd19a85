// The observers that report training: RUN/metrics.jsonl and what a person sees.
#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <string>

#include "nmt/format.h"
#include "nmt/train/training_observers.h"

namespace nmt::train {
namespace {

// Current resident memory (VmRSS) in MiB, recorded so that long runs show whether memory grows.
double resident_memory_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

bool has_pairs(const ValidationResult& result) { return result.tokens > 0; }

// Epoch and between-epoch records (EpochRecord, ValidRecord) carry the same validation fields.
template <typename Record>
void copy_validation(const ValidationDone& validation, Record& record) {
  record.is_best = validation.is_best;
  record.validation_seconds = validation.seconds;
  record.valid_loss = validation.result.loss;
  record.valid_ppl = std::exp(validation.result.nll);
  if (validation.result.translation) {
    record.valid_bleu = validation.result.translation->bleu;
    record.valid_chrf = validation.result.translation->chrf;
  }
}

// "the mean of the last 3 epochs", or "... and the weights training stopped at"
std::string describe_average(const AverageDone& average) {
  if (average.with_current) {
    return fmt::format("the mean of the last {} epochs and the weights training stopped at",
                       average.checkpoints - 1);
  }
  return fmt::format("the mean of the last {} epochs", average.checkpoints);
}

}  // namespace

std::string describe_validation(const ValidationResult& result) {
  std::string text =
      fmt::format("valid loss {:.4f} (ppl {:.2f})", result.loss, std::exp(result.nll));
  if (result.translation) {
    text += fmt::format(", BLEU {:.2f}, chrF {:.2f}", result.translation->bleu,
                        result.translation->chrf);
  }
  return text;
}

MetricsWriter::MetricsWriter(const std::string& path) : log_(path) {}

void MetricsWriter::run_started(const RunStarted& event) {
  StartRecord record{event.epoch, event.step, event.train_pairs, event.valid_pairs, event.device};
  record.processor = event.processor;
  log_.write(record);
}

void MetricsWriter::step_done(const StepDone& event) {
  if (!event.window) return;
  const ProgressLine& window = *event.window;
  log_.write(TrainRecord{window.epoch, window.step, window.loss, window.lr,
                         window.tokens_per_second, event.train_seconds, resident_memory_mib()});
}

std::optional<TrainStop> MetricsWriter::validation_done(const ValidationDone& event) {
  ValidRecord record;
  record.epoch = event.epoch;
  record.step = event.step;
  record.train_seconds = event.train_seconds;
  copy_validation(event, record);
  log_.write(record);
  return std::nullopt;
}

std::optional<TrainStop> MetricsWriter::epoch_done(const EpochDone& event) {
  EpochRecord record;
  record.epoch = event.epoch;
  record.step = event.step;
  record.train_loss = event.train_loss;
  record.lr = event.lr;
  record.train_seconds = event.train_seconds;
  record.target_tokens = event.target_tokens;
  if (event.validation && has_pairs(event.validation->result)) {
    copy_validation(*event.validation, record);
  }
  log_.write(record);
  return std::nullopt;
}

void MetricsWriter::average_done(const AverageDone& event) {
  log_.write(AverageRecord{event.checkpoints, event.result.loss, std::exp(event.result.nll),
                           event.is_kept});
}

void MetricsWriter::stopped(const Stopped& event) {
  EndRecord record;
  record.reason = stop_reason_name(event.reason);
  record.message = event.message;
  record.epoch = event.epoch;
  record.step = event.step;
  record.batch = event.batch;
  record.train_seconds = event.train_seconds;
  if (event.best) {
    record.best_metric = best_metric_name(event.best->metric);
    record.best_score = event.best->score;
    record.best_step = static_cast<double>(event.best->step);
    if (event.best->metric == BestMetric::kLoss) record.best_valid_loss = event.best->score;
  }
  log_.write(record);
}

ConsoleReport::ConsoleReport(bool is_terminal) : display_(is_terminal) {}

void ConsoleReport::step_done(const StepDone& event) {
  if (event.window) display_.log(*event.window);
  display_.update(event.line);
}

std::optional<TrainStop> ConsoleReport::validation_done(const ValidationDone& event) {
  display_.clear();
  spdlog::info("step {} (epoch {}): {}{}", event.step, event.epoch,
               describe_validation(event.result), event.is_best ? ", best so far" : "");
  return std::nullopt;
}

std::optional<TrainStop> ConsoleReport::epoch_done(const EpochDone& event) {
  display_.clear();
  if (event.validation && has_pairs(event.validation->result)) {
    spdlog::info("epoch {}/{}: train loss {:.4f}, {}{}, {} steps, {}", event.epoch, event.epochs,
                 event.train_loss, describe_validation(event.validation->result),
                 event.validation->is_best ? ", best so far" : "", event.step,
                 format_clock(event.train_seconds));
  } else {
    spdlog::info("epoch {}/{}: train loss {:.4f}, {} steps", event.epoch, event.epochs,
                 event.train_loss, event.step);
  }
  return std::nullopt;
}

void ConsoleReport::average_done(const AverageDone& event) {
  display_.clear();
  if (event.is_kept) {
    spdlog::info("averaged.pt: {}, {}, better than best.pt", describe_average(event),
                 describe_validation(event.result));
  } else if (event.best) {
    spdlog::info("{} ({}) is not better than best.pt ({} {:.4f}): not kept",
                 describe_average(event), describe_validation(event.result),
                 metric_label(event.best->metric), event.best->score);
  }
}

void ConsoleReport::stopped(const Stopped& event) {
  display_.clear();
  if (event.best) {
    spdlog::info("best.pt: step {}, {} {:.4f}", event.best->step, metric_label(event.best->metric),
                 event.best->score);
  }
}

}  // namespace nmt::train
