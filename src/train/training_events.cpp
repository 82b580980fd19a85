#include "nmt/train/training_events.h"

#include <utility>

namespace nmt::train {

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

void TrainingObservers::add(std::shared_ptr<TrainingObserver> observer) {
  observers_.push_back(std::move(observer));
}

void TrainingObservers::run_started(const RunStarted& event) {
  for (const auto& observer : observers_) observer->run_started(event);
}

void TrainingObservers::step_done(const StepDone& event) {
  for (const auto& observer : observers_) observer->step_done(event);
}

std::optional<TrainStop> TrainingObservers::validation_done(const ValidationDone& event) {
  std::optional<TrainStop> first;
  for (const auto& observer : observers_) {
    std::optional<TrainStop> stop = observer->validation_done(event);
    if (stop && !first) first = std::move(stop);
  }
  return first;
}

std::optional<TrainStop> TrainingObservers::epoch_done(const EpochDone& event) {
  std::optional<TrainStop> first;
  for (const auto& observer : observers_) {
    std::optional<TrainStop> stop = observer->epoch_done(event);
    if (stop && !first) first = std::move(stop);
  }
  return first;
}

void TrainingObservers::checkpoint_saved(const CheckpointSaved& event) {
  for (const auto& observer : observers_) observer->checkpoint_saved(event);
}

void TrainingObservers::average_done(const AverageDone& event) {
  for (const auto& observer : observers_) observer->average_done(event);
}

void TrainingObservers::stopped(const Stopped& event) {
  for (const auto& observer : observers_) observer->stopped(event);
}

}  // namespace nmt::train
