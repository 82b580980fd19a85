// Validation and what follows it: the best model (best.pt) by the chosen metric, patience, the
// epoch's checkpoint and record, rank 0's verdict shared with the other ranks, and the average of
// the last epochs' weights.
#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "nmt/format.h"
#include "nmt/train/schedule.h"
#include "trainer_internal.h"

namespace nmt::train {

using trainer_detail::diverged;
using trainer_detail::metric_label;

namespace {

// "valid loss 2.1234 (ppl 8.37), BLEU 23.41, chrF 45.10"
std::string describe_validation(const ValidationResult& result) {
  std::string text =
      fmt::format("valid loss {:.4f} (ppl {:.2f})", result.loss, std::exp(result.nll));
  if (result.translation) {
    text += fmt::format(", BLEU {:.2f}, chrF {:.2f}", result.translation->bleu,
                        result.translation->chrf);
  }
  return text;
}

}  // namespace

const char* trainer_detail::metric_label(BestMetric metric) {
  switch (metric) {
    case BestMetric::kLoss:
      return "validation loss";
    case BestMetric::kBleu:
      return "validation BLEU";
    case BestMetric::kChrf:
      return "validation chrF";
  }
  return "?";
}

ValidationResult Trainer::validate() {
  const data::BatchingOptions batching{setup_.options.batch_size, setup_.options.max_tokens, 0,
                                       /*shuffle=*/false};
  ValidationResult result = evaluate_loss(model_, valid_, batching, setup_.options.label_smoothing,
                                          setup_.device, uses_bf16());
  if (setup_.score_translations && !valid_.empty()) {
    result.translation = setup_.score_translations(model_);
  }
  model_->train();
  return result;
}

struct Trainer::Validation {
  ValidationResult result;
  bool is_best = false;
  double seconds = 0.0;

  bool has_valid() const { return result.tokens > 0; }
  bool has_diverged() const { return has_valid() && !std::isfinite(result.loss); }

  // Epoch and between-epoch records (EpochRecord, ValidRecord) carry the same validation fields.
  template <typename Record>
  void copy_into(Record& record) const {
    record.is_best = is_best;
    record.validation_seconds = seconds;
    record.valid_loss = result.loss;
    record.valid_ppl = std::exp(result.nll);
    if (result.translation) {
      record.valid_bleu = result.translation->bleu;
      record.valid_chrf = result.translation->chrf;
    }
  }
};

Trainer::Validation Trainer::validate_and_keep_best() {
  const auto start = SteadyClock::now();
  Validation validation{validate()};
  if (validation.has_valid() && !validation.has_diverged()) {
    const double value = metric_value(setup_.options.best_metric, validation.result);
    validation.is_best = improves(setup_.options.best_metric, value, progress_.best_score);
    if (validation.is_best) {
      progress_.best_score = value;
      progress_.best_step = progress_.step;
      progress_.validations_without_improvement = 0;
      save(setup_.run.best(), WithOptimizer::kNo);
    } else {
      ++progress_.validations_without_improvement;
    }
  }
  validation.seconds = seconds_since(start);
  return validation;
}

std::optional<TrainStop> Trainer::check_patience() const {
  const int64_t patience = setup_.options.early_stopping;
  const int64_t waited = progress_.validations_without_improvement;
  if (patience == 0 || waited < patience) return std::nullopt;
  return TrainStop{StopReason::kEarlyStopped,
                   std::string("no better ") + metric_label(setup_.options.best_metric) + " for " +
                       std::to_string(waited) +
                       (setup_.options.valid_every > 0 ? " validations" : " epochs") +
                       ": stopped early"};
}

std::optional<TrainStop> Trainer::share_verdict(std::optional<TrainStop> stop) {
  if (!setup_.communicator) return stop;
  at::Tensor verdict = at::full({1}, stop ? static_cast<int64_t>(stop->reason) + 1 : 0, at::kLong);
  if (setup_.device.is_cuda()) verdict = verdict.to(setup_.device);
  setup_.communicator->sum({verdict}, "rank 0's verdict on the validation");
  const int64_t code = verdict.item<int64_t>();
  if (code > 0 && !stop) {
    stop = TrainStop{static_cast<StopReason>(code - 1), "rank 0 ended the training"};
  }
  return stop;
}

std::optional<TrainStop> Trainer::finish_epoch(TrainingSession& session, double train_loss) {
  if (!setup_.communicator) return save_epoch(*session.metrics, train_loss);
  check_ranks_agree(("after epoch " + std::to_string(progress_.epoch + 1)).c_str());
  // Rank 0 validates and saves while the others wait; its verdict reaches them as a number.
  std::optional<TrainStop> stop;
  if (is_writer()) {
    stop = save_epoch(*session.metrics, train_loss);
  } else {
    begin_next_epoch();
  }
  return share_verdict(std::move(stop));
}

std::optional<TrainStop> Trainer::save_epoch(MetricsLog& metrics, double train_loss) {
  if (!std::isfinite(train_loss)) {
    return diverged("the loss is no longer finite (train " + std::to_string(train_loss) + ")");
  }
  begin_next_epoch();
  std::optional<Validation> validation;
  if (setup_.options.valid_every == 0) {
    validation = validate_and_keep_best();
    if (validation->has_diverged()) {
      return diverged("the validation loss is no longer finite (train " +
                      std::to_string(train_loss) + ")");
    }
  }
  const RunDir& run = setup_.run;
  save(run.checkpoint(), WithOptimizer::kYes);
  const int64_t kept_epochs = std::max(setup_.options.average_last, setup_.options.keep_epochs);
  if (kept_epochs > 0) {
    save(run.epoch_weights(progress_.epoch), WithOptimizer::kNo);
    std::error_code ignored;
    std::filesystem::remove(run.epoch_weights(progress_.epoch - kept_epochs), ignored);
  }
  EpochRecord record;
  record.epoch = progress_.epoch;
  record.step = progress_.step;
  record.train_loss = train_loss;
  record.lr = learning_rate(setup_.options, progress_.step);
  record.train_seconds = progress_.train_seconds;
  record.target_tokens = progress_.target_tokens;
  if (validation && validation->has_valid()) {
    const ValidationResult& valid = validation->result;
    validation->copy_into(record);
    spdlog::info("epoch {}/{}: train loss {:.4f}, {}{}, {} steps, {}", progress_.epoch,
                 setup_.options.epochs, train_loss, describe_validation(valid),
                 validation->is_best ? ", best so far" : "", progress_.step,
                 format_clock(progress_.train_seconds));
  } else {
    spdlog::info("epoch {}/{}: train loss {:.4f}, {} steps", progress_.epoch, setup_.options.epochs,
                 train_loss, progress_.step);
  }
  metrics.write(record);
  return validation ? check_patience() : std::nullopt;
}

std::optional<TrainStop> Trainer::validate_between_epochs(TrainingSession& session) {
  std::optional<TrainStop> stop;
  if (is_writer()) {
    const Validation validation = validate_and_keep_best();
    if (validation.has_diverged()) {
      stop = diverged("the validation loss is no longer finite at step " +
                      std::to_string(progress_.step));
    } else {
      save(setup_.run.checkpoint(), WithOptimizer::kYes);
      if (validation.has_valid()) {
        const ValidationResult& valid = validation.result;
        ValidRecord record;
        record.epoch = progress_.epoch + 1;
        record.step = progress_.step;
        record.train_seconds = progress_.train_seconds;
        validation.copy_into(record);
        session.metrics->write(record);
        spdlog::info("step {} (epoch {}): {}{}", progress_.step, progress_.epoch + 1,
                     describe_validation(valid), validation.is_best ? ", best so far" : "");
        stop = check_patience();
      }
    }
  }
  return share_verdict(std::move(stop));
}

void Trainer::begin_next_epoch() {
  ++progress_.epoch;
  progress_.batch = 0;
  progress_.epoch_loss_sum = 0.0;
  progress_.epoch_loss_tokens = 0;
  restore_epoch_loss();
}

void Trainer::write_average(MetricsLog& metrics, bool with_current) {
  const RunDir& run = setup_.run;
  std::vector<std::string> paths;
  const int64_t epochs = setup_.options.average_last - (with_current ? 1 : 0);
  const int64_t first = std::max<int64_t>(1, progress_.epoch - epochs + 1);
  for (int64_t epoch = first; epoch <= progress_.epoch; ++epoch) {
    if (std::filesystem::exists(run.epoch_weights(epoch)))
      paths.push_back(run.epoch_weights(epoch));
  }
  if (with_current) paths.push_back(run.checkpoint());
  if (paths.size() < 2) return;
  load_averaged_weights(paths, model_, setup_.device);
  const ValidationResult valid = validate();
  const BestMetric metric = setup_.options.best_metric;
  // Translation picks averaged.pt first, so it is kept only when it beats best.pt.
  const bool is_better =
      valid.tokens == 0 || improves(metric, metric_value(metric, valid), progress_.best_score);
  metrics.write(AverageRecord{static_cast<int64_t>(paths.size()), valid.loss, std::exp(valid.nll),
                              is_better});
  const std::string mean =
      with_current
          ? fmt::format("the mean of the last {} epochs and the weights training stopped at",
                        paths.size() - 1)
          : fmt::format("the mean of the last {} epochs", paths.size());
  if (is_better) {
    save(run.averaged(), WithOptimizer::kNo);
    spdlog::info("averaged.pt: {}, {}, better than best.pt", mean, describe_validation(valid));
  } else {
    std::error_code ignored;
    std::filesystem::remove(run.averaged(), ignored);
    spdlog::info("{} ({}) is not better than best.pt ({} {:.4f}): not kept", mean,
                 describe_validation(valid), metric_label(metric), progress_.best_score);
  }
  // The run's latest checkpoint stays the trained model; the average is its own file.
  load_checkpoint(run.checkpoint(), model_, nullptr, setup_.device, /*restore_rng=*/false);
}

}  // namespace nmt::train
