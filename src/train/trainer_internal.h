// What the trainer's two files (trainer.cpp: the epoch loop; trainer_validation.cpp: validation,
// saving and the end of a run) share; an update step is nmt/train/update_step.h.
#pragma once

#include <optional>
#include <string>

#include "nmt/stopwatch.h"
#include "nmt/train/options.h"
#include "nmt/train/trainer.h"
#include "nmt/train/training_events.h"
#include "update_events.h"

namespace nmt::train {

// What one call of Trainer::run carries from epoch to epoch.
struct TrainingSession {
  TrainingObservers observers;
  ProgressTracker tracker;
};

struct EpochOutcome {
  double mean_loss = 0.0;
  std::optional<TrainStop> stop;
};

namespace trainer_detail {

// The stop for a loss that is no longer finite; `what` says which and where.
TrainStop diverged(const std::string& what);

}  // namespace trainer_detail
}  // namespace nmt::train
