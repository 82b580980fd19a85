// What the epoch loop (trainer.cpp) hands to others after each update: the schedule says which
// events fall on it (a progress record, a validation, a save), and the progress tracker turns the
// updates into the status line and the window records (the loss of the last window, tokens/s, the
// time left) that the observers of StepDone show and record.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>

#include "nmt/train/checkpoint.h"
#include "nmt/train/loss.h"
#include "nmt/train/options.h"
#include "nmt/train/progress_display.h"

namespace nmt::train {

// The events that fall on an update; the stops (signal, budget, max_steps) are the trainer's.
struct UpdateEvents {
  bool is_epoch_end = false;   // the update trained the epoch's last batch
  bool is_log = false;         // a progress record: every log_every steps and at the epoch's end
  bool is_validation = false;  // every valid_every steps (then the validation saves)
  bool is_save = false;        // every save_every steps, where nothing else saves
};

UpdateEvents events_after(const TrainOptions& options, int64_t step, bool is_epoch_end);

// Running sums of the loss over a logging window, kept on the device so that adding a step never
// synchronises it.
class LossWindow {
 public:
  explicit LossWindow(const c10::Device& device);

  void add(const LossSum& step, int64_t target_tokens, double seconds);
  // Loss per target token (reads the device).
  double mean_loss() const;
  double tokens_per_second() const;

 private:
  at::Tensor loss_;
  at::Tensor tokens_;
  int64_t target_tokens_ = 0;
  double seconds_ = 0.0;
};

// One update as the tracker sees it.
struct UpdateRecord {
  LossSum loss;                     // its loss sum and tokens (device tensors)
  int64_t tokens = 0;               // its real target tokens, all ranks
  double seconds = 0.0;             // its training time
  std::optional<double> mean_loss;  // its loss per token, when it was read
};

// The progress of one call of Trainer::run as a person sees it.
class ProgressTracker {
 public:
  ProgressTracker(const TrainOptions& options, c10::Device device);

  // A new epoch of `batches` batches, trained `per_update` at a time.
  void start_epoch(int64_t batches, int64_t per_update);

  // After an update that brought training to `progress`: the status line (tokens/s since the run
  // began), and at a log event the record of the window that ended (its loss and tokens/s), which
  // starts a new window.
  struct Report {
    ProgressLine line;
    std::optional<ProgressLine> window;
  };
  Report after_update(const TrainingState& progress,
                      const UpdateRecord& update,
                      const UpdateEvents& events);

 private:
  // Seconds left: the updates left at this session's mean update time, within the time budget.
  double seconds_left(const TrainingState& progress) const;

  TrainOptions options_;
  c10::Device device_;
  LossWindow window_;
  int64_t batches_ = 0;
  int64_t per_update_ = 1;
  double last_loss_ = 0.0;  // the last loss read in this epoch
  int64_t updates_ = 0;     // updates trained in this session
  double seconds_ = 0.0;    // their training time
};

}  // namespace nmt::train
