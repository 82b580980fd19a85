// The epoch loop: batches of an epoch, progress, stops (signal, budget, step limit), the run's
// start and end records. An update step is nmt/train/update_step.h, validation and saving
// trainer_validation.cpp.
#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <spdlog/spdlog.h>
#include <torch/utils.h>

#include <cmath>
#include <string>

#include "nmt/cpu_features.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "trainer_internal.h"

namespace nmt::train {

using trainer_detail::diverged;

TrainStop trainer_detail::diverged(const std::string& what) {
  return {StopReason::kDiverged, what +
                                     "; stopped without saving, the last good checkpoint is kept. "
                                     "Try a lower lr or clip_norm"};
}

Trainer::Trainer(model::Transformer model,
                 TrainerSetup setup,
                 data::EncodedCorpus train,
                 data::EncodedCorpus valid)
    : model_(std::move(model)),
      setup_(std::move(setup)),
      train_(std::move(train)),
      valid_(std::move(valid)),
      update_step_(model_, setup_.options, setup_.device, setup_.communicator),
      best_(keeper_from(progress_)) {
  restore_epoch_loss();
  if (setup_.options.best_metric != BestMetric::kLoss && !setup_.score_translations &&
      !valid_.empty()) {
    throw ConfigError(std::string("train.best_metric: \"") +
                      best_metric_name(setup_.options.best_metric) +
                      "\" needs validation translations, which this trainer was not given");
  }
  if (setup_.communicator) {
    setup_.communicator->broadcast_from_leader(update_step_.parameters());
    check_ranks_agree("after the broadcast from rank 0");
  }
}

int Trainer::world_size() const {
  return setup_.communicator ? setup_.communicator->world_size() : 1;
}

bool Trainer::is_writer() const { return !setup_.communicator || setup_.communicator->is_leader(); }

void Trainer::check_ranks_agree(const char* when) {
  if (!setup_.communicator ||
      setup_.communicator->identical_on_all_ranks(update_step_.parameters()))
    return;
  throw Error("distributed: rank " + std::to_string(setup_.communicator->rank()) +
              ": the ranks' parameters differ " + when +
              "; the ranks no longer train the same model (different nmt builds or devices?)");
}

bool Trainer::uses_bf16() const {
  return train::uses_bf16(setup_.options.precision, setup_.device.is_cuda());
}

data::BatchPlan Trainer::epoch_plan(int64_t epoch) const {
  return plan_epoch(train_, setup_.options, epoch);
}

void Trainer::resume(const std::string& checkpoint_path) {
  progress_ = load_checkpoint(checkpoint_path, model_, &update_step_.optimizer(), setup_.device,
                              /*restore_rng=*/true);
  best_ = keeper_from(progress_);
  restore_epoch_loss();
}

BestKeeper Trainer::keeper_from(const TrainingState& state) {
  return BestKeeper(setup_.options.best_metric,
                    {state.best_score, state.best_step, state.validations_without_improvement},
                    [this] { save(setup_.run.best(), WithOptimizer::kNo); });
}

TrainingState Trainer::progress() const {
  TrainingState state = progress_;
  const BestKeeper::State& best = best_.state();
  state.best_score = best.best_score;
  state.best_step = best.best_step;
  state.validations_without_improvement = best.validations_without_improvement;
  return state;
}

void Trainer::restore_epoch_loss() {
  const auto on_device = at::TensorOptions().device(setup_.device);
  epoch_loss_ = {at::full({}, progress_.epoch_loss_sum, on_device.dtype(at::kDouble)),
                 at::full({}, progress_.epoch_loss_tokens, on_device.dtype(at::kLong))};
}

void Trainer::save(const std::string& path, WithOptimizer with_optimizer) {
  if (!is_writer()) return;
  progress_.epoch_loss_sum = epoch_loss_.sum.item<double>();
  progress_.epoch_loss_tokens = epoch_loss_.tokens.item<int64_t>();
  save_checkpoint(path, model_,
                  with_optimizer == WithOptimizer::kYes ? &update_step_.optimizer() : nullptr,
                  progress(), setup_.config_json);
}

void Trainer::save_latest(TrainingSession& session) {
  save(setup_.run.checkpoint(), WithOptimizer::kYes);
  if (is_writer()) {
    session.observers.checkpoint_saved({CheckpointKind::kLatest, progress_.epoch, progress_.step});
  }
}

std::optional<TrainStop> Trainer::check_stop(TrainingSession& session,
                                             bool stop_requested,
                                             bool is_out_of_time) {
  const bool is_at_limit =
      setup_.options.max_steps > 0 && progress_.step >= setup_.options.max_steps;
  if (!is_at_limit && !stop_requested && !is_out_of_time) return std::nullopt;
  save_latest(session);
  if (is_at_limit) {
    return TrainStop{
        StopReason::kStepLimit,
        "reached max_steps (" + std::to_string(setup_.options.max_steps) + "); checkpoint saved"};
  }
  const std::string where =
      "epoch " + std::to_string(progress_.epoch + 1) + ", batch " + std::to_string(progress_.batch);
  if (stop_requested) {
    return TrainStop{StopReason::kInterrupted,
                     "interrupted at " + where + "; checkpoint saved, continue with --resume"};
  }
  return TrainStop{StopReason::kTimeLimit,
                   "spent the training time budget of " +
                       duration_text(setup_.options.max_time_seconds) + " (train.max_time) at " +
                       where + ", step " + std::to_string(progress_.step) + "; checkpoint saved"};
}

bool Trainer::has_just_validated() const {
  const int64_t every = setup_.options.valid_every;
  return every > 0 ? progress_.step > 0 && progress_.step % every == 0
                   : progress_.epoch > 0 && progress_.batch == 0;
}

void Trainer::encode_epoch() {
  if (!setup_.encode_epoch) return;
  const auto start = SteadyClock::now();
  train_ = setup_.encode_epoch(progress_.epoch);
  progress_.train_seconds += seconds_since(start);
}

UpdateBatches Trainer::gather_update(const data::BatchPlan& plan, int64_t first, bool stop) {
  // Rank 0's clock decides: its training time is the one checkpoints record.
  const double budget = setup_.options.max_time_seconds;
  return update_step_.gather(train_, plan, first, stop,
                             is_writer() && budget > 0.0 && progress_.train_seconds >= budget);
}

StepResult Trainer::train_update(const UpdateBatches& update, int64_t next_batch) {
  if (setup_.communicator && !is_writer()) {
    // Rank 0 keeps the seeded generator that checkpoints restore (a one-rank job trains exactly
    // as a single process); the others draw their own dropout masks from their rank and the
    // step, so that a resumed job draws what an uninterrupted one draws.
    torch::manual_seed(setup_.options.seed +
                       7919 * static_cast<uint64_t>(setup_.communicator->rank()) +
                       static_cast<uint64_t>(progress_.step));
  }
  const StepResult step = update_step_.run(update.mine, update.tokens);
  ++progress_.step;
  progress_.batch = next_batch;
  progress_.target_tokens += update.tokens;
  return step;
}

std::optional<double> Trainer::read_loss(const StepResult& step,
                                         int64_t tokens,
                                         const UpdateEvents& events) const {
  // Reading the loss synchronises a GPU, so there it happens only at log steps.
  if (!setup_.device.is_cpu() && !events.is_log) return std::nullopt;
  return step.loss.sum.item<double>() / static_cast<double>(std::max<int64_t>(1, tokens));
}

void Trainer::report(TrainingSession& session,
                     const UpdateRecord& update,
                     const UpdateEvents& events) {
  progress_.train_seconds += update.seconds;
  epoch_loss_.sum += update.loss.sum;
  epoch_loss_.tokens += update.loss.tokens;
  const ProgressTracker::Report report = session.tracker.after_update(progress_, update, events);
  session.observers.step_done({report.line, report.window, progress_.train_seconds});
}

std::optional<TrainStop> Trainer::run_events(TrainingSession& session, const UpdateEvents& events) {
  if (events.is_validation) return validate_between_epochs(session);
  if (events.is_save) save_latest(session);
  return std::nullopt;
}

std::optional<TrainStop> Trainer::run_update(TrainingSession& session,
                                             const data::BatchPlan& plan,
                                             int64_t first,
                                             bool stop_requested) {
  const auto start = SteadyClock::now();
  const auto batches = static_cast<int64_t>(plan.size());
  const UpdateBatches update = gather_update(plan, first, stop_requested);
  if (auto stop = check_stop(session, update.is_stop_requested, update.is_out_of_time)) {
    return stop;
  }
  const int64_t next = std::min(first + update_step_.batches_per_update(), batches);
  const StepResult step = train_update(update, next);
  const UpdateEvents events = events_after(setup_.options, progress_.step, next == batches);
  const std::optional<double> loss = read_loss(step, update.tokens, events);
  if (loss && !std::isfinite(*loss)) {
    return diverged("the loss became " + std::to_string(*loss) + " at step " +
                    std::to_string(progress_.step));
  }
  report(session, {step.loss, update.tokens, seconds_since(start), loss}, events);
  return run_events(session, events);
}

EpochOutcome Trainer::run_epoch(const std::atomic<bool>& stop_requested, TrainingSession& session) {
  encode_epoch();
  const data::BatchPlan plan = epoch_plan(progress_.epoch);
  const auto batches = static_cast<int64_t>(plan.size());
  const int64_t per_update = update_step_.batches_per_update();
  session.tracker.start_epoch(batches, per_update);
  for (int64_t b = progress_.batch; b < batches; b += per_update) {
    std::optional<TrainStop> stop = run_update(session, plan, b, stop_requested.load());
    if (stop) return {0.0, std::move(stop)};
  }
  // The whole epoch's, also when it was resumed in its middle: the sums are in checkpoint.pt.
  return {epoch_loss_.sum.item<double>() /
              static_cast<double>(std::max<int64_t>(1, epoch_loss_.tokens.item<int64_t>())),
          std::nullopt};
}

TrainingSession Trainer::start_session() {
  TrainingSession session{{}, ProgressTracker(setup_.options, setup_.device)};
  const TrainOptions& options = setup_.options;
  if (is_writer()) session.observers.add(std::make_shared<MetricsWriter>(setup_.run.metrics()));
  session.observers.add(std::make_shared<ConsoleReport>(setup_.is_terminal && is_writer()));
  if (is_writer()) {
    session.observers.add(std::make_shared<EarlyStopping>(
        options.early_stopping, options.best_metric, options.valid_every > 0));
    const int64_t kept_epochs = std::max(options.average_last, options.keep_epochs);
    if (kept_epochs > 0) {
      session.observers.add(std::make_shared<EpochWeightsKept>(setup_.run, kept_epochs));
    }
  }
  for (const auto& observer : setup_.observers) session.observers.add(observer);
  return session;
}

RunStarted Trainer::run_started() const {
  RunStarted start{progress_.epoch,
                   progress_.step,
                   static_cast<int64_t>(train_.size()),
                   static_cast<int64_t>(valid_.size()),
                   setup_.device.str(),
                   std::nullopt};
  const std::string processor = cpu_model_name();
  if (!processor.empty()) {
    start.processor = processor + ", " + std::to_string(at::get_num_threads()) + " threads";
  }
  return start;
}

TrainResult Trainer::run(const std::atomic<bool>& stop_requested) {
  TrainingSession session = start_session();
  session.observers.run_started(run_started());
  std::optional<TrainStop> stop;
  while (progress_.epoch < setup_.options.epochs && !stop) {
    EpochOutcome outcome = run_epoch(stop_requested, session);
    stop = outcome.stop ? std::move(outcome.stop) : finish_epoch(session, outcome.mean_loss);
  }
  return end_run(session, std::move(stop));
}

}  // namespace nmt::train
