#include "update_events.h"

#include <algorithm>
#include <string>

#include "nmt/train/schedule.h"

namespace nmt::train {

UpdateEvents events_after(const TrainOptions& options, int64_t step, bool is_epoch_end) {
  UpdateEvents events;
  events.is_epoch_end = is_epoch_end;
  events.is_log = step % options.log_every == 0 || is_epoch_end;
  events.is_validation = options.valid_every > 0 && step % options.valid_every == 0;
  events.is_save = !events.is_validation && options.save_every > 0 &&
                   step % options.save_every == 0 && !is_epoch_end;
  return events;
}

LossWindow::LossWindow(const c10::Device& device)
    : loss_(at::zeros({}, at::TensorOptions().dtype(at::kDouble).device(device))),
      tokens_(at::zeros({}, at::TensorOptions().dtype(at::kLong).device(device))) {}

void LossWindow::add(const LossSum& step, int64_t target_tokens, double seconds) {
  loss_ += step.sum;
  tokens_ += step.tokens;
  target_tokens_ += target_tokens;
  seconds_ += seconds;
}

double LossWindow::mean_loss() const {
  return loss_.item<double>() / static_cast<double>(std::max<int64_t>(1, tokens_.item<int64_t>()));
}

double LossWindow::tokens_per_second() const {
  return static_cast<double>(target_tokens_) / std::max(seconds_, 1e-9);
}

ProgressTracker::ProgressTracker(const TrainOptions& options, c10::Device device)
    : options_(options), device_(device), window_(device) {}

void ProgressTracker::start_epoch(int64_t batches, int64_t per_update) {
  batches_ = batches;
  per_update_ = per_update;
  window_ = LossWindow(device_);
  last_loss_ = 0.0;
}

double ProgressTracker::seconds_left(const TrainingState& progress) const {
  const auto updates_for = [&](int64_t count) { return (count + per_update_ - 1) / per_update_; };
  const int64_t remaining = updates_for(batches_ - progress.batch) +
                            (options_.epochs - progress.epoch - 1) * updates_for(batches_);
  const double seconds = static_cast<double>(remaining) * seconds_ /
                         static_cast<double>(std::max<int64_t>(1, updates_));
  if (options_.max_time_seconds <= 0.0) return seconds;
  return std::min(seconds, std::max(0.0, options_.max_time_seconds - progress.train_seconds));
}

ProgressTracker::Report ProgressTracker::after_update(const TrainingState& progress,
                                                      const UpdateRecord& update,
                                                      const UpdateEvents& events) {
  window_.add(update.loss, update.tokens, update.seconds);
  seconds_ += update.seconds;
  ++updates_;
  if (update.mean_loss) last_loss_ = *update.mean_loss;
  Report report;
  report.line = {progress.epoch + 1,
                 options_.epochs,
                 progress.batch,
                 batches_,
                 progress.step,
                 last_loss_,
                 learning_rate(options_, progress.step),
                 0.0,
                 seconds_left(progress)};
  if (events.is_log) {
    report.window = report.line;
    report.window->loss = window_.mean_loss();
    report.window->tokens_per_second = window_.tokens_per_second();
    report.line.loss = report.window->loss;
    window_ = LossWindow(device_);
  }
  report.line.tokens_per_second =
      static_cast<double>(progress.target_tokens) / std::max(progress.train_seconds, 1e-9);
  return report;
}

}  // namespace nmt::train
