#include "nmt/train/trainer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <ATen/ATen.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>

#include "nmt/text/vocab.h"
#include "nmt/train/progress.h"
#include "nmt/train/schedule.h"
#include "train/autocast.h"

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
LossSum batch_loss(model::Transformer& model, const at::Tensor& source, const at::Tensor& target_in,
                   const at::Tensor& target_out, double smoothing) {
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
    return loss_.item<double>() / static_cast<double>(std::max<int64_t>(1, tokens_.item<int64_t>()));
  }
  double tokens_per_second() const { return static_cast<double>(target_tokens_) / std::max(seconds_, 1e-9); }

 private:
  at::Tensor loss_;
  at::Tensor tokens_;
  int64_t target_tokens_ = 0;
  double seconds_ = 0.0;
};

}  // namespace

// What one call of Trainer::run carries from epoch to epoch.
struct TrainingSession {
  MetricsLog metrics;
  ProgressDisplay display;
  int64_t batches = 0;   // batches trained in this session (for the ETA)
  double seconds = 0.0;  // their training time
};

namespace {

const char* reason_name(StopReason reason) {
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
  }
  return "?";
}

}  // namespace

Trainer::Trainer(model::Transformer model, TrainerSetup setup, std::vector<data::EncodedPair> train,
                 std::vector<data::EncodedPair> valid)
    : model_(std::move(model)),
      setup_(std::move(setup)),
      train_(std::move(train)),
      valid_(std::move(valid)),
      parameters_(model_->parameters()),
      optimizer_(parameters_, AdamOptions{setup_.options.adam_beta1, setup_.options.adam_beta2, setup_.options.adam_eps}) {}

bool Trainer::uses_bf16() const {
  return train::uses_bf16(setup_.options.precision, setup_.device.is_cuda());
}

data::BatchPlan Trainer::epoch_plan(int64_t epoch) const {
  const data::BatchingOptions batching{setup_.options.batch_size, setup_.options.max_tokens, setup_.options.seed, true};
  return data::plan_batches(train_, batching, epoch);
}

void Trainer::resume(const std::string& checkpoint_path) {
  progress_ = load_checkpoint(checkpoint_path, model_, &optimizer_, setup_.device, /*restore_rng=*/true);
}

StepResult Trainer::train_step(const data::Batch& batch, bool measure_phases) {
  StepResult result;
  const bool is_cuda = setup_.device.is_cuda();
  auto mark = [&](double& slot, Clock::time_point& since) {
    if (!measure_phases) return;
    if (is_cuda) torch::cuda::synchronize();
    const auto now = Clock::now();
    slot = std::chrono::duration<double>(now - since).count();
    since = now;
  };
  auto since = Clock::now();
  const at::Tensor source = batch.source.to(setup_.device, /*non_blocking=*/true);
  const at::Tensor target_in = batch.target_in.to(setup_.device, /*non_blocking=*/true);
  const at::Tensor target_out = batch.target_out.to(setup_.device, /*non_blocking=*/true);
  mark(result.times.data, since);

  model_->train();
  {
    AutocastScope autocast(uses_bf16());
    result.loss = batch_loss(model_, source, target_in, target_out, setup_.options.label_smoothing);
  }
  mark(result.times.forward, since);

  (result.loss.sum / result.loss.tokens.clamp_min(1)).backward();
  mark(result.times.backward, since);

  if (setup_.options.clip_norm > 0.0) torch::nn::utils::clip_grad_norm_(parameters_, setup_.options.clip_norm);
  optimizer_.step(learning_rate(setup_.options, optimizer_.steps() + 1));
  optimizer_.zero_grad();
  mark(result.times.optimizer, since);
  result.loss.sum = result.loss.sum.detach();
  return result;
}

ValidationResult Trainer::validate() {
  const data::BatchingOptions batching{setup_.options.batch_size, setup_.options.max_tokens, 0, false};
  const ValidationResult result =
      evaluate_loss(model_, valid_, batching, setup_.options.label_smoothing, setup_.device, uses_bf16());
  model_->train();
  return result;
}

void Trainer::save(const std::string& name, bool with_optimizer) {
  save_checkpoint(setup_.run_dir + "/" + name, model_, with_optimizer ? &optimizer_ : nullptr, progress_,
                  setup_.config_json);
}

void Trainer::finish_epoch(MetricsLog& metrics, double train_loss, TrainResult& result) {
  const auto start = Clock::now();
  const ValidationResult valid = validate();
  const bool has_valid = valid.tokens > 0;
  const bool is_finite = std::isfinite(train_loss) && (!has_valid || std::isfinite(valid.loss));
  if (!is_finite) {
    result.reason = StopReason::kDiverged;
    result.message = "the loss is no longer finite (train " + std::to_string(train_loss) +
                     "); stopped without saving, the last good checkpoint is kept. Try a lower lr or clip_norm";
    return;
  }
  const bool is_best = has_valid && valid.loss < progress_.best_valid_loss;
  if (is_best) {
    progress_.best_valid_loss = valid.loss;
    progress_.epochs_without_improvement = 0;
  } else if (has_valid) {
    ++progress_.epochs_without_improvement;
  }
  ++progress_.epoch;
  progress_.batch = 0;
  if (is_best) save("best.pt", /*with_optimizer=*/false);
  save("checkpoint.pt", /*with_optimizer=*/true);
  if (setup_.options.average_last > 0) {
    save("epoch-" + std::to_string(progress_.epoch) + ".pt", /*with_optimizer=*/false);
    std::error_code ignored;
    std::filesystem::remove(
        setup_.run_dir + "/epoch-" + std::to_string(progress_.epoch - setup_.options.average_last) + ".pt", ignored);
  }
  nlohmann::json record = {{"event", "epoch"},      {"epoch", progress_.epoch},
                           {"step", progress_.step}, {"train_loss", train_loss},
                           {"lr", learning_rate(setup_.options, progress_.step)},
                           {"train_seconds", progress_.train_seconds},
                           {"target_tokens", progress_.target_tokens},
                           {"is_best", is_best},
                           {"validation_seconds", seconds_since(start)}};
  if (has_valid) {
    record["valid_loss"] = valid.loss;
    record["valid_ppl"] = std::exp(valid.nll);
  }
  metrics.write(record);
  if (has_valid) {
    spdlog::info("epoch {}/{}: train loss {:.4f}, valid loss {:.4f} (ppl {:.2f}){}, {} steps, {}",
                 progress_.epoch, setup_.options.epochs, train_loss, valid.loss, std::exp(valid.nll),
                 is_best ? ", best so far" : "", progress_.step, format_duration(progress_.train_seconds));
  } else {
    spdlog::info("epoch {}/{}: train loss {:.4f}, {} steps", progress_.epoch, setup_.options.epochs, train_loss,
                 progress_.step);
  }
  if (setup_.options.early_stopping > 0 && progress_.epochs_without_improvement >= setup_.options.early_stopping) {
    result.reason = StopReason::kEarlyStopped;
    result.message = "no better validation loss for " + std::to_string(progress_.epochs_without_improvement) +
                     " epochs: stopped early";
  }
}

void Trainer::write_average(MetricsLog& metrics) {
  std::vector<std::string> paths;
  for (int64_t epoch = std::max<int64_t>(1, progress_.epoch - setup_.options.average_last + 1); epoch <= progress_.epoch;
       ++epoch) {
    const std::string path = setup_.run_dir + "/epoch-" + std::to_string(epoch) + ".pt";
    if (std::filesystem::exists(path)) paths.push_back(path);
  }
  if (paths.size() < 2) return;
  load_averaged_weights(paths, model_, setup_.device);
  const ValidationResult valid = validate();
  // Translation picks averaged.pt first, so it is kept only when it beats best.pt.
  const bool is_better = valid.tokens == 0 || valid.loss < progress_.best_valid_loss;
  metrics.write({{"event", "average"}, {"checkpoints", paths.size()}, {"valid_loss", valid.loss},
                 {"valid_ppl", std::exp(valid.nll)}, {"kept", is_better}});
  if (is_better) {
    save("averaged.pt", /*with_optimizer=*/false);
    spdlog::info("averaged.pt: mean of the last {} epochs, valid loss {:.4f} (ppl {:.2f}), better than best.pt",
                 paths.size(), valid.loss, std::exp(valid.nll));
  } else {
    std::error_code ignored;
    std::filesystem::remove(setup_.run_dir + "/averaged.pt", ignored);
    spdlog::info("the mean of the last {} epochs has valid loss {:.4f}, not better than best.pt ({:.4f}): not kept",
                 paths.size(), valid.loss, progress_.best_valid_loss);
  }
  // The run's latest checkpoint stays the trained model; the average is its own file.
  load_checkpoint(setup_.run_dir + "/checkpoint.pt", model_, nullptr, setup_.device, /*restore_rng=*/false);
}

bool Trainer::should_stop(const std::atomic<bool>& stop_requested, TrainResult& result) {
  const bool is_at_limit = setup_.options.max_steps > 0 && progress_.step >= setup_.options.max_steps;
  if (!is_at_limit && !stop_requested.load()) return false;
  save("checkpoint.pt", /*with_optimizer=*/true);
  if (is_at_limit) {
    result.reason = StopReason::kStepLimit;
    result.message = "reached max_steps (" + std::to_string(setup_.options.max_steps) + "); checkpoint saved";
  } else {
    result.reason = StopReason::kInterrupted;
    result.message = "interrupted at epoch " + std::to_string(progress_.epoch + 1) + ", batch " +
                     std::to_string(progress_.batch) + "; checkpoint saved, continue with --resume";
  }
  return true;
}

double Trainer::run_epoch(const std::atomic<bool>& stop_requested, TrainingSession& session, TrainResult& result) {
  const TrainOptions& options = setup_.options;
  const data::BatchPlan plan = epoch_plan(progress_.epoch);
  const auto batches = static_cast<int64_t>(plan.size());
  LossWindow epoch(setup_.device);
  LossWindow window(setup_.device);
  double last_loss = 0.0;
  for (int64_t b = progress_.batch; b < batches; ++b) {
    if (should_stop(stop_requested, result)) {
      session.display.clear();
      return 0.0;
    }
    const auto start = Clock::now();
    const data::Batch batch = data::collate(train_, plan[static_cast<std::size_t>(b)]);
    const StepResult step = train_step(batch);
    ++progress_.step;
    progress_.batch = b + 1;
    progress_.target_tokens += batch.target_tokens;
    const bool is_log_step = progress_.step % options.log_every == 0 || b + 1 == batches;
    // Reading the loss synchronises a GPU, so there it happens only at log steps.
    if (setup_.device.is_cpu() || is_log_step) {
      last_loss = step.loss.sum.item<double>() / static_cast<double>(std::max<int64_t>(1, batch.target_tokens));
      if (!std::isfinite(last_loss)) {
        session.display.clear();
        result.reason = StopReason::kDiverged;
        result.message = "the loss became " + std::to_string(last_loss) + " at step " +
                         std::to_string(progress_.step) +
                         "; stopped without saving, the last good checkpoint is kept. Try a lower lr or clip_norm";
        return last_loss;
      }
    }
    const double seconds = seconds_since(start);
    progress_.train_seconds += seconds;
    epoch.add(step.loss, batch.target_tokens, seconds);
    window.add(step.loss, batch.target_tokens, seconds);
    session.seconds += seconds;
    ++session.batches;
    const int64_t remaining = (batches - b - 1) + (options.epochs - progress_.epoch - 1) * batches;
    ProgressLine line{progress_.epoch + 1, options.epochs, b + 1, batches, progress_.step, last_loss,
                      learning_rate(options, progress_.step), 0.0,
                      static_cast<double>(remaining) * session.seconds / static_cast<double>(session.batches)};
    if (is_log_step) {
      line.loss = window.mean_loss();
      line.tokens_per_second = window.tokens_per_second();
      session.metrics.write({{"event", "train"}, {"epoch", line.epoch}, {"step", line.step}, {"loss", line.loss},
                             {"lr", line.lr}, {"tgt_tokens_per_s", line.tokens_per_second},
                             {"train_seconds", progress_.train_seconds}, {"rss_mib", resident_memory_mib()}});
      session.display.log(line);
      window = LossWindow(setup_.device);
    }
    line.tokens_per_second =
        static_cast<double>(progress_.target_tokens) / std::max(progress_.train_seconds, 1e-9);
    session.display.update(line);
    if (options.save_every > 0 && progress_.step % options.save_every == 0 && b + 1 < batches) {
      save("checkpoint.pt", /*with_optimizer=*/true);
    }
  }
  session.display.clear();
  return epoch.mean_loss();
}

TrainResult Trainer::run(const std::atomic<bool>& stop_requested) {
  TrainingSession session{MetricsLog(setup_.run_dir + "/metrics.jsonl"), ProgressDisplay(setup_.is_terminal)};
  TrainResult result;
  session.metrics.write({{"event", "start"}, {"epoch", progress_.epoch}, {"step", progress_.step},
                         {"train_pairs", train_.size()}, {"valid_pairs", valid_.size()},
                         {"device", setup_.device.str()}});
  while (progress_.epoch < setup_.options.epochs && result.reason == StopReason::kFinished) {
    const double train_loss = run_epoch(stop_requested, session, result);
    if (result.reason != StopReason::kFinished) break;
    finish_epoch(session.metrics, train_loss, result);
  }
  if (result.reason == StopReason::kFinished) {
    result.message = "trained " + std::to_string(progress_.epoch) + " epochs";
  }
  const bool has_ended_normally =
      result.reason == StopReason::kFinished || result.reason == StopReason::kEarlyStopped;
  if (has_ended_normally && setup_.options.average_last > 0) write_average(session.metrics);
  const bool has_best = std::isfinite(progress_.best_valid_loss);
  session.metrics.write({{"event", "end"}, {"reason", reason_name(result.reason)}, {"message", result.message},
                         {"epoch", progress_.epoch}, {"step", progress_.step},
                         {"train_seconds", progress_.train_seconds},
                         {"best_valid_loss", has_best ? nlohmann::json(progress_.best_valid_loss) : nlohmann::json()}});
  result.progress = progress_;
  return result;
}

}  // namespace nmt::train
