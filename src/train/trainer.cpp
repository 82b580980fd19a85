#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "autocast.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/text/vocab.h"
#include "nmt/train/progress.h"
#include "nmt/train/schedule.h"

namespace nmt::train {
namespace {

using Clock = std::chrono::steady_clock;

// Current resident memory (VmRSS) in MiB, logged so that long runs show whether memory grows.
double resident_memory_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Forward pass of a batch: decoder states of the real target positions only, so that the
// vocabulary projection never runs on padding. Returns (loss sum, tokens).
LossSum batch_loss(model::Transformer& model,
                   const at::Tensor& source,
                   const at::Tensor& target_in,
                   const at::Tensor& target_out,
                   double smoothing) {
  const at::Tensor memory = model->encode(source);
  const at::Tensor hidden = model->decode(target_in, memory, model::padding_mask(source));
  const at::Tensor rows = target_out.reshape({-1}).ne(text::kPadId).nonzero().squeeze(1);
  const at::Tensor states = hidden.reshape({-1, hidden.size(-1)}).index_select(0, rows);
  const at::Tensor targets = target_out.reshape({-1}).index_select(0, rows);
  return label_smoothed_cross_entropy(model->project(states), targets, smoothing);
}

// Running sums of the loss over a logging window or an epoch, kept on the device so that adding
// a step never synchronises it.
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

// What one call of Trainer::run carries from epoch to epoch.
struct TrainingSession {
  std::optional<MetricsLog> metrics;  // rank 0 (or the only process) writes metrics.jsonl
  ProgressDisplay display;
  int64_t batches = 0;   // batches trained in this session (for the ETA)
  double seconds = 0.0;  // their training time
};

struct EpochOutcome {
  double mean_loss = 0.0;
  std::optional<TrainStop> stop;
};

namespace {

TrainStop diverged(const std::string& what) {
  return {StopReason::kDiverged, what +
                                     "; stopped without saving, the last good checkpoint is kept. "
                                     "Try a lower lr or clip_norm"};
}

}  // namespace

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
      parameters_(model_->parameters()),
      optimizer_(parameters_,
                 AdamOptions{setup_.options.adam_beta1, setup_.options.adam_beta2,
                             setup_.options.adam_eps, setup_.options.weight_decay}) {
  if (setup_.options.best_metric != BestMetric::kLoss && !setup_.score_translations &&
      !valid_.empty()) {
    throw ConfigError(std::string("train.best_metric: \"") +
                      best_metric_name(setup_.options.best_metric) +
                      "\" needs validation translations, which this trainer was not given");
  }
  if (setup_.communicator) {
    setup_.communicator->broadcast_from_leader(parameters_);
    check_ranks_agree("after the broadcast from rank 0");
  }
}

int Trainer::world_size() const {
  return setup_.communicator ? setup_.communicator->world_size() : 1;
}

bool Trainer::is_writer() const { return !setup_.communicator || setup_.communicator->is_leader(); }

void Trainer::check_ranks_agree(const char* when) {
  if (!setup_.communicator || setup_.communicator->identical_on_all_ranks(parameters_)) return;
  throw Error("distributed: rank " + std::to_string(setup_.communicator->rank()) +
              ": the ranks' parameters differ " + when +
              "; the ranks no longer train the same model (different nmt builds or devices?)");
}

std::vector<int64_t> Trainer::rank_batches(int64_t first, int64_t batches) const {
  const int64_t ranks = world_size();
  const int64_t rank = setup_.communicator ? setup_.communicator->rank() : 0;
  const int64_t end = std::min(batches, first + ranks * setup_.options.update_freq);
  std::vector<int64_t> mine;
  for (int64_t index = first + rank; index < end; index += ranks) mine.push_back(index);
  return mine;
}

int64_t Trainer::batches_per_update() const { return world_size() * setup_.options.update_freq; }

UpdateBatches Trainer::update_batches(const data::BatchPlan& plan,
                                      int64_t first,
                                      bool stop_requested) {
  UpdateBatches update;
  const auto start = Clock::now();
  for (const int64_t index : rank_batches(first, static_cast<int64_t>(plan.size()))) {
    update.mine.push_back(data::collate(train_, plan[static_cast<std::size_t>(index)]));
    update.tokens += update.mine.back().target_tokens;
  }
  update.collate_seconds = seconds_since(start);
  update.is_stop_requested = stop_requested;
  // Rank 0's clock decides: its training time is the one checkpoints record.
  const double budget = setup_.options.max_time_seconds;
  update.is_out_of_time = is_writer() && budget > 0.0 && progress_.train_seconds >= budget;
  if (setup_.communicator) {
    // One small all-reduce: the update's tokens on all ranks, whether any rank was told to stop
    // (a signal reaches one rank or all; either way they stop at the same update), and whether
    // rank 0 has spent the time budget.
    at::Tensor shared = at::tensor({update.tokens, static_cast<int64_t>(stop_requested),
                                    static_cast<int64_t>(update.is_out_of_time)},
                                   at::kLong);
    if (setup_.device.is_cuda()) shared = shared.to(setup_.device);
    setup_.communicator->sum({shared}, "the update's token count");
    shared = shared.cpu();
    update.tokens = shared[0].item<int64_t>();
    update.is_stop_requested = shared[1].item<int64_t>() > 0;
    update.is_out_of_time = shared[2].item<int64_t>() > 0;
  }
  return update;
}

bool Trainer::uses_bf16() const {
  return train::uses_bf16(setup_.options.precision, setup_.device.is_cuda());
}

data::BatchPlan Trainer::epoch_plan(int64_t epoch) const {
  const data::BatchingOptions batching{setup_.options.batch_size, setup_.options.max_tokens,
                                       setup_.options.seed, /*shuffle=*/true};
  return data::plan_batches(train_, batching, epoch);
}

void Trainer::resume(const std::string& checkpoint_path) {
  progress_ =
      load_checkpoint(checkpoint_path, model_, &optimizer_, setup_.device, /*restore_rng=*/true);
}

StepResult Trainer::train_step(const data::Batch& batch, bool measure_phases) {
  return train_update({batch}, batch.target_tokens, measure_phases);
}

StepResult Trainer::train_update(const std::vector<data::Batch>& micro_batches,
                                 int64_t update_tokens,
                                 bool measure_phases) {
  StepResult result;
  const bool is_cuda = setup_.device.is_cuda();
  auto mark = [&](double& slot, Clock::time_point& since) {
    if (!measure_phases) return;
    if (is_cuda) torch::cuda::synchronize(setup_.device.index());
    const auto now = Clock::now();
    slot += std::chrono::duration<double>(now - since).count();
    since = now;
  };
  const double divisor = static_cast<double>(std::max<int64_t>(1, update_tokens));
  model_->train();
  auto since = Clock::now();
  for (const data::Batch& batch : micro_batches) {
    const at::Tensor source = batch.source.to(setup_.device, /*non_blocking=*/true);
    const at::Tensor target_in = batch.target_in.to(setup_.device, /*non_blocking=*/true);
    const at::Tensor target_out = batch.target_out.to(setup_.device, /*non_blocking=*/true);
    mark(result.times.data, since);
    LossSum loss;
    {
      AutocastScope autocast(setup_.device.type(), uses_bf16());
      loss = batch_loss(model_, source, target_in, target_out, setup_.options.label_smoothing);
    }
    mark(result.times.forward, since);
    (loss.sum / divisor).backward();
    mark(result.times.backward, since);
    const at::Tensor sum = loss.sum.detach();
    result.loss.sum = result.loss.sum.defined() ? result.loss.sum + sum : sum;
    result.loss.tokens =
        result.loss.tokens.defined() ? result.loss.tokens + loss.tokens : loss.tokens;
  }
  if (!result.loss.sum.defined()) {  // a rank without a batch in the last update of an epoch
    result.loss.sum = at::zeros({}, at::TensorOptions().device(setup_.device));
    result.loss.tokens = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(setup_.device));
  }
  if (setup_.communicator) {
    std::vector<at::Tensor> summed;
    summed.reserve(parameters_.size() + 1);
    for (at::Tensor& parameter : parameters_) {
      if (!parameter.grad().defined()) parameter.mutable_grad() = at::zeros_like(parameter);
      summed.push_back(parameter.grad());
    }
    summed.push_back(result.loss.sum);
    setup_.communicator->sum(summed, "the gradients");
    result.loss.tokens = at::full({}, update_tokens, result.loss.tokens.options());
  }
  if (setup_.options.clip_norm > 0.0) {
    torch::nn::utils::clip_grad_norm_(parameters_, setup_.options.clip_norm);
  }
  optimizer_.step(learning_rate(setup_.options, optimizer_.steps() + 1));
  optimizer_.zero_grad();
  mark(result.times.optimizer, since);
  return result;
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

void Trainer::save(const std::string& path, WithOptimizer with_optimizer) {
  if (!is_writer()) return;
  save_checkpoint(path, model_, with_optimizer == WithOptimizer::kYes ? &optimizer_ : nullptr,
                  progress_, setup_.config_json);
}

struct Trainer::Validation {
  ValidationResult result;
  bool is_best = false;
  double seconds = 0.0;

  bool has_valid() const { return result.tokens > 0; }
  bool has_diverged() const { return has_valid() && !std::isfinite(result.loss); }
};

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

const char* metric_label(BestMetric metric) {
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

}  // namespace

Trainer::Validation Trainer::validate_and_keep_best() {
  const auto start = Clock::now();
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
    ++progress_.epoch;
    progress_.batch = 0;
  }
  return share_verdict(std::move(stop));
}

std::optional<TrainStop> Trainer::save_epoch(MetricsLog& metrics, double train_loss) {
  if (!std::isfinite(train_loss)) {
    return diverged("the loss is no longer finite (train " + std::to_string(train_loss) + ")");
  }
  ++progress_.epoch;
  progress_.batch = 0;
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
  if (setup_.options.average_last > 0) {
    save(run.epoch_weights(progress_.epoch), WithOptimizer::kNo);
    std::error_code ignored;
    std::filesystem::remove(run.epoch_weights(progress_.epoch - setup_.options.average_last),
                            ignored);
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
    record.is_best = validation->is_best;
    record.validation_seconds = validation->seconds;
    record.valid_loss = valid.loss;
    record.valid_ppl = std::exp(valid.nll);
    if (valid.translation) {
      record.valid_bleu = valid.translation->bleu;
      record.valid_chrf = valid.translation->chrf;
    }
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
        record.is_best = validation.is_best;
        record.validation_seconds = validation.seconds;
        record.valid_loss = valid.loss;
        record.valid_ppl = std::exp(valid.nll);
        if (valid.translation) {
          record.valid_bleu = valid.translation->bleu;
          record.valid_chrf = valid.translation->chrf;
        }
        session.metrics->write(record);
        spdlog::info("step {} (epoch {}): {}{}", progress_.step, progress_.epoch + 1,
                     describe_validation(valid), validation.is_best ? ", best so far" : "");
        stop = check_patience();
      }
    }
  }
  return share_verdict(std::move(stop));
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
    const auto start = Clock::now();
    train_ = setup_.encode_epoch(progress_.epoch);
    progress_.train_seconds += seconds_since(start);
  }
  const data::BatchPlan plan = epoch_plan(progress_.epoch);
  const auto batches = static_cast<int64_t>(plan.size());
  const int64_t per_update = batches_per_update();
  const auto updates_for = [&](int64_t count) { return (count + per_update - 1) / per_update; };
  LossWindow epoch(setup_.device);
  LossWindow window(setup_.device);
  double last_loss = 0.0;
  for (int64_t b = progress_.batch; b < batches; b += per_update) {
    const auto start = Clock::now();
    const UpdateBatches update = update_batches(plan, b, stop_requested.load());
    if (std::optional<TrainStop> stop =
            check_stop(update.is_stop_requested, update.is_out_of_time)) {
      session.display.clear();
      return {0.0, std::move(stop)};
    }
    const int64_t tokens = update.tokens;
    const StepResult step = train_update(update.mine, tokens);
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
    epoch.add(step.loss, tokens, seconds);
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
  return {epoch.mean_loss(), std::nullopt};
}

TrainResult Trainer::run(const std::atomic<bool>& stop_requested) {
  TrainingSession session{std::nullopt, ProgressDisplay(setup_.is_terminal && is_writer())};
  if (is_writer()) session.metrics.emplace(setup_.run.metrics());
  if (setup_.communicator && !setup_.communicator->is_leader()) {
    // Rank 0 keeps the seeded generator (a one-rank job trains exactly as a single process); the
    // others draw their own dropout masks.
    torch::manual_seed(setup_.options.seed +
                       7919 * static_cast<uint64_t>(setup_.communicator->rank()) +
                       static_cast<uint64_t>(progress_.step));
  }
  if (session.metrics)
    session.metrics->write(StartRecord{progress_.epoch, progress_.step,
                                       static_cast<int64_t>(train_.size()),
                                       static_cast<int64_t>(valid_.size()), setup_.device.str()});
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
