// Validation and what follows it: the best-checkpoint keeper's verdict, the epoch's checkpoint and
// events, rank 0's verdict shared with the other ranks, the average of the last epochs' weights,
// and the end of a run.
#include "nmt/train/trainer.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "nmt/train/schedule.h"
#include "trainer_internal.h"

namespace nmt::train {

using trainer_detail::diverged;

namespace {

bool has_diverged(const ValidationResult& result) {
  return result.tokens > 0 && !std::isfinite(result.loss);
}

}  // namespace

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

ValidationDone Trainer::validate_and_judge(TrainingSession& session, int64_t epoch) {
  const auto start = SteadyClock::now();
  ValidationDone validation;
  validation.epoch = epoch;
  validation.step = progress_.step;
  validation.train_seconds = progress_.train_seconds;
  validation.result = validate();
  best_.judge(validation);
  if (validation.is_best) {
    session.observers.checkpoint_saved({CheckpointKind::kBest, progress_.epoch, progress_.step});
  }
  validation.seconds = seconds_since(start);
  return validation;
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
  if (!setup_.communicator) return save_epoch(session, train_loss);
  check_ranks_agree(("after epoch " + std::to_string(progress_.epoch + 1)).c_str());
  // Rank 0 validates and saves while the others wait; its verdict reaches them as a number.
  std::optional<TrainStop> stop;
  if (is_writer()) {
    stop = save_epoch(session, train_loss);
  } else {
    begin_next_epoch();
  }
  return share_verdict(std::move(stop));
}

std::optional<TrainStop> Trainer::save_epoch(TrainingSession& session, double train_loss) {
  if (!std::isfinite(train_loss)) {
    return diverged("the loss is no longer finite (train " + std::to_string(train_loss) + ")");
  }
  begin_next_epoch();
  std::optional<ValidationDone> validation;
  if (setup_.options.valid_every == 0) {
    validation = validate_and_judge(session, progress_.epoch);
    if (has_diverged(validation->result)) {
      return diverged("the validation loss is no longer finite (train " +
                      std::to_string(train_loss) + ")");
    }
  }
  save_latest(session);
  if (std::max(setup_.options.average_last, setup_.options.keep_epochs) > 0) {
    save(setup_.run.epoch_weights(progress_.epoch), WithOptimizer::kNo);
    session.observers.checkpoint_saved(
        {CheckpointKind::kEpochWeights, progress_.epoch, progress_.step});
  }
  EpochDone epoch = epoch_done(train_loss);
  epoch.validation = std::move(validation);
  return session.observers.epoch_done(epoch);
}

EpochDone Trainer::epoch_done(double train_loss) const {
  EpochDone epoch;
  epoch.epoch = progress_.epoch;
  epoch.epochs = setup_.options.epochs;
  epoch.step = progress_.step;
  epoch.train_loss = train_loss;
  epoch.lr = learning_rate(setup_.options, progress_.step);
  epoch.train_seconds = progress_.train_seconds;
  epoch.target_tokens = progress_.target_tokens;
  return epoch;
}

std::optional<TrainStop> Trainer::validate_between_epochs(TrainingSession& session) {
  std::optional<TrainStop> stop;
  if (is_writer()) stop = validate_on_writer(session);
  return share_verdict(std::move(stop));
}

std::optional<TrainStop> Trainer::validate_on_writer(TrainingSession& session) {
  const ValidationDone validation = validate_and_judge(session, progress_.epoch + 1);
  if (has_diverged(validation.result)) {
    return diverged("the validation loss is no longer finite at step " +
                    std::to_string(progress_.step));
  }
  save_latest(session);
  if (validation.result.tokens == 0) return std::nullopt;
  return session.observers.validation_done(validation);
}

void Trainer::begin_next_epoch() {
  ++progress_.epoch;
  progress_.batch = 0;
  progress_.epoch_loss_sum = 0.0;
  progress_.epoch_loss_tokens = 0;
  restore_epoch_loss();
}

void Trainer::write_average(TrainingSession& session, bool with_current) {
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
  AverageDone average{static_cast<int64_t>(paths.size()), with_current, validate(), false,
                      best_.best()};
  // Translation picks averaged.pt first, so it is kept only when it beats best.pt.
  const BestMetric metric = setup_.options.best_metric;
  average.is_kept =
      average.result.tokens == 0 ||
      improves(metric, metric_value(metric, average.result), best_.state().best_score);
  if (average.is_kept) {
    save(run.averaged(), WithOptimizer::kNo);
  } else {
    std::error_code ignored;
    std::filesystem::remove(run.averaged(), ignored);
  }
  session.observers.average_done(average);
  // The run's latest checkpoint stays the trained model; the average is its own file.
  load_checkpoint(run.checkpoint(), model_, nullptr, setup_.device, /*restore_rng=*/false);
}

TrainResult Trainer::end_run(TrainingSession& session, std::optional<TrainStop> stop) {
  const bool is_out_of_time = stop && stop->reason == StopReason::kTimeLimit;
  if (is_out_of_time && !valid_.empty() && !has_just_validated()) {
    // The weights the budget stopped at are validated, as the last epoch's are at a planned end.
    std::optional<TrainStop> after = validate_between_epochs(session);
    if (after && after->reason == StopReason::kDiverged) stop = std::move(after);
  }
  check_ranks_agree("at the end of training");
  TrainResult result;
  result.reason = stop ? stop->reason : StopReason::kFinished;
  result.message = stop ? stop->message : "trained " + std::to_string(progress_.epoch) + " epochs";
  const bool has_ended_normally = result.reason == StopReason::kFinished ||
                                  result.reason == StopReason::kEarlyStopped ||
                                  result.reason == StopReason::kTimeLimit;
  if (has_ended_normally && setup_.options.average_last > 0 && is_writer()) {
    write_average(session,
                  /*with_current=*/result.reason == StopReason::kTimeLimit && progress_.batch > 0);
  }
  session.observers.stopped({result.reason, result.message, progress_.epoch, progress_.step,
                             progress_.batch, progress_.train_seconds,
                             is_writer() ? best_.best() : std::nullopt});
  result.progress = progress();
  return result;
}

}  // namespace nmt::train
