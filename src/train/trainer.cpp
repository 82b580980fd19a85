// The epoch loop: batches of an epoch, progress, stops (signal, budget, step limit), the run's
// start and end records. An update step is nmt/train/update_step.h, validation and saving
// trainer_validation.cpp.
#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <spdlog/spdlog.h>
#include <torch/utils.h>

#include <cmath>
#include <fstream>
#include <string>

#include "nmt/cpu_features.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/train/schedule.h"
#include "trainer_internal.h"

namespace nmt::train {
namespace {

using trainer_detail::diverged;
using trainer_detail::metric_label;

// Current resident memory (VmRSS) in MiB, logged so that long runs show whether memory grows.
double resident_memory_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

// Running sums of the loss over a logging window, kept on the device so that adding a step never
// synchronises it.
class LossWindow {
 public:
  explicit LossWindow(const c10::Device& device)
      : loss_(at::zeros({}, at::TensorOptions().dtype(at::kDouble).device(device))),
        tokens_(at::zeros({}, at::TensorOptions().dtype(at::kLong).device(device))) {}

  void add(const LossSum& step, int64_t target_tokens, double seconds) {
    loss_ += step.sum;
    tokens_ += step.tokens;
    target_tokens_ += target_tokens;
    seconds_ += seconds;
  }
  // Loss per target token (reads the device).
  double mean_loss() const {
    return loss_.item<double>() /
           static_cast<double>(std::max<int64_t>(1, tokens_.item<int64_t>()));
  }
  double tokens_per_second() const {
    return static_cast<double>(target_tokens_) / std::max(seconds_, 1e-9);
  }

 private:
  at::Tensor loss_;
  at::Tensor tokens_;
  int64_t target_tokens_ = 0;
  double seconds_ = 0.0;
};

}  // namespace

TrainStop trainer_detail::diverged(const std::string& what) {
  return {StopReason::kDiverged, what +
                                     "; stopped without saving, the last good checkpoint is kept. "
                                     "Try a lower lr or clip_norm"};
}

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kFinished:
      return "finished";
    case StopReason::kEarlyStopped:
      return "early_stopped";
    case StopReason::kInterrupted:
      return "interrupted";
    case StopReason::kDiverged:
      return "diverged";
    case StopReason::kStepLimit:
      return "step_limit";
    case StopReason::kTimeLimit:
      return "time_limit";
  }
  return "?";
}

Trainer::Trainer(model::Transformer model,
                 TrainerSetup setup,
                 std::vector<data::EncodedPair> train,
                 std::vector<data::EncodedPair> valid)
    : model_(std::move(model)),
      setup_(std::move(setup)),
      train_(std::move(train)),
      valid_(std::move(valid)),
      update_step_(model_, setup_.options, setup_.device, setup_.communicator) {
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
  restore_epoch_loss();
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
                  progress_, setup_.config_json);
}

std::optional<TrainStop> Trainer::check_stop(bool stop_requested, bool is_out_of_time) {
  const bool is_at_limit =
      setup_.options.max_steps > 0 && progress_.step >= setup_.options.max_steps;
  if (!is_at_limit && !stop_requested && !is_out_of_time) return std::nullopt;
  save(setup_.run.checkpoint(), WithOptimizer::kYes);
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

EpochOutcome Trainer::run_epoch(const std::atomic<bool>& stop_requested, TrainingSession& session) {
  const TrainOptions& options = setup_.options;
  if (setup_.encode_epoch) {
    const auto start = SteadyClock::now();
    train_ = setup_.encode_epoch(progress_.epoch);
    progress_.train_seconds += seconds_since(start);
  }
  const data::BatchPlan plan = epoch_plan(progress_.epoch);
  const auto batches = static_cast<int64_t>(plan.size());
  const int64_t per_update = update_step_.batches_per_update();
  const auto updates_for = [&](int64_t count) { return (count + per_update - 1) / per_update; };
  LossWindow window(setup_.device);
  double last_loss = 0.0;
  for (int64_t b = progress_.batch; b < batches; b += per_update) {
    const auto start = SteadyClock::now();
    // Rank 0's clock decides: its training time is the one checkpoints record.
    const double budget = options.max_time_seconds;
    const UpdateBatches update =
        update_step_.gather(train_, plan, b, stop_requested.load(),
                            is_writer() && budget > 0.0 && progress_.train_seconds >= budget);
    if (std::optional<TrainStop> stop =
            check_stop(update.is_stop_requested, update.is_out_of_time)) {
      session.display.clear();
      return {0.0, std::move(stop)};
    }
    const int64_t tokens = update.tokens;
    if (setup_.communicator && !is_writer()) {
      // Rank 0 keeps the seeded generator that checkpoints restore (a one-rank job trains exactly
      // as a single process); the others draw their own dropout masks from their rank and the
      // step, so that a resumed job draws what an uninterrupted one draws.
      torch::manual_seed(setup_.options.seed +
                         7919 * static_cast<uint64_t>(setup_.communicator->rank()) +
                         static_cast<uint64_t>(progress_.step));
    }
    const StepResult step = update_step_.run(update.mine, tokens);
    ++progress_.step;
    progress_.batch = std::min(b + per_update, batches);
    progress_.target_tokens += tokens;
    const bool is_epoch_end = progress_.batch == batches;
    const bool is_log_step = progress_.step % options.log_every == 0 || is_epoch_end;
    // Reading the loss synchronises a GPU, so there it happens only at log steps.
    if (setup_.device.is_cpu() || is_log_step) {
      last_loss = step.loss.sum.item<double>() / static_cast<double>(std::max<int64_t>(1, tokens));
      if (!std::isfinite(last_loss)) {
        session.display.clear();
        return {last_loss, diverged("the loss became " + std::to_string(last_loss) + " at step " +
                                    std::to_string(progress_.step))};
      }
    }
    const double seconds = seconds_since(start);
    progress_.train_seconds += seconds;
    epoch_loss_.sum += step.loss.sum;
    epoch_loss_.tokens += step.loss.tokens;
    window.add(step.loss, tokens, seconds);
    session.seconds += seconds;
    ++session.batches;
    const int64_t remaining = updates_for(batches - progress_.batch) +
                              (options.epochs - progress_.epoch - 1) * updates_for(batches);
    double eta_seconds =
        static_cast<double>(remaining) * session.seconds / static_cast<double>(session.batches);
    if (options.max_time_seconds > 0.0) {
      eta_seconds =
          std::min(eta_seconds, std::max(0.0, options.max_time_seconds - progress_.train_seconds));
    }
    ProgressLine line{progress_.epoch + 1,
                      options.epochs,
                      progress_.batch,
                      batches,
                      progress_.step,
                      last_loss,
                      learning_rate(options, progress_.step),
                      0.0,
                      eta_seconds};
    if (is_log_step) {
      line.loss = window.mean_loss();
      line.tokens_per_second = window.tokens_per_second();
      if (session.metrics) {
        session.metrics->write(TrainRecord{line.epoch, line.step, line.loss, line.lr,
                                           line.tokens_per_second, progress_.train_seconds,
                                           resident_memory_mib()});
      }
      session.display.log(line);
      window = LossWindow(setup_.device);
    }
    line.tokens_per_second =
        static_cast<double>(progress_.target_tokens) / std::max(progress_.train_seconds, 1e-9);
    session.display.update(line);
    const bool is_validation_step =
        options.valid_every > 0 && progress_.step % options.valid_every == 0;
    if (is_validation_step) {
      session.display.clear();
      if (std::optional<TrainStop> stop = validate_between_epochs(session)) {
        return {0.0, std::move(stop)};
      }
    } else if (options.save_every > 0 && progress_.step % options.save_every == 0 &&
               !is_epoch_end) {
      save(setup_.run.checkpoint(), WithOptimizer::kYes);
    }
  }
  session.display.clear();
  // The whole epoch's, also when it was resumed in its middle: the sums are in checkpoint.pt.
  return {epoch_loss_.sum.item<double>() /
              static_cast<double>(std::max<int64_t>(1, epoch_loss_.tokens.item<int64_t>())),
          std::nullopt};
}

TrainResult Trainer::run(const std::atomic<bool>& stop_requested) {
  TrainingSession session{std::nullopt, ProgressDisplay(setup_.is_terminal && is_writer())};
  if (is_writer()) session.metrics.emplace(setup_.run.metrics());
  if (session.metrics) {
    StartRecord start{progress_.epoch, progress_.step, static_cast<int64_t>(train_.size()),
                      static_cast<int64_t>(valid_.size()), setup_.device.str()};
    const std::string processor = cpu_model_name();
    if (!processor.empty()) {
      start.processor = processor + ", " + std::to_string(at::get_num_threads()) + " threads";
    }
    session.metrics->write(start);
  }
  std::optional<TrainStop> stop;
  while (progress_.epoch < setup_.options.epochs && !stop) {
    EpochOutcome outcome = run_epoch(stop_requested, session);
    stop = outcome.stop ? std::move(outcome.stop) : finish_epoch(session, outcome.mean_loss);
  }
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
  if (has_ended_normally && setup_.options.average_last > 0 && session.metrics) {
    write_average(*session.metrics,
                  /*with_current=*/result.reason == StopReason::kTimeLimit && progress_.batch > 0);
  }
  EndRecord end;
  end.reason = stop_reason_name(result.reason);
  end.message = result.message;
  end.epoch = progress_.epoch;
  end.step = progress_.step;
  end.batch = progress_.batch;
  end.train_seconds = progress_.train_seconds;
  const BestMetric metric = setup_.options.best_metric;
  if (std::isfinite(progress_.best_score)) {
    end.best_metric = best_metric_name(metric);
    end.best_score = progress_.best_score;
    end.best_step = static_cast<double>(progress_.best_step);
    if (metric == BestMetric::kLoss) end.best_valid_loss = progress_.best_score;
    if (is_writer()) {
      spdlog::info("best.pt: step {}, {} {:.4f}", progress_.best_step, metric_label(metric),
                   progress_.best_score);
    }
  }
  if (session.metrics) session.metrics->write(end);
  result.progress = progress_;
  return result;
}

}  // namespace nmt::train
