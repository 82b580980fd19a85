// What training tells its observers: the run started, an update was trained, a validation ended,
// an epoch ended, a checkpoint was written, the average of the last epochs was weighed, training
// stopped. The trainer (nmt/train/trainer.h) emits the events; what follows from them — the
// metrics.jsonl records, what a person sees, early stopping, which epoch files stay — is the
// observers' (nmt/train/training_observers.h). The trainer reads one thing back: a stop that an
// observer asks for after a validation or an epoch. No Torch.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nmt/train/options.h"
#include "nmt/train/progress_display.h"
#include "nmt/train/validation_result.h"

namespace nmt::train {

enum class StopReason { kFinished, kEarlyStopped, kStepLimit, kInterrupted, kDiverged, kTimeLimit };

// "finished", "early_stopped", "step_limit", "interrupted", "diverged", "time_limit"
// (metrics.jsonl).
const char* stop_reason_name(StopReason reason);

// Why training stopped before its planned end, with one sentence for the user.
struct TrainStop {
  StopReason reason = StopReason::kFinished;
  std::string message;
};

// best.pt: its score in train.best_metric and the step it was saved at.
struct BestSoFar {
  BestMetric metric = BestMetric::kLoss;
  double score = 0.0;
  int64_t step = 0;
};

// A call of Trainer::run began: a new run, or a resumed one at epoch/step.
struct RunStarted {
  int64_t epoch = 0;  // epochs completed before this session
  int64_t step = 0;
  int64_t train_pairs = 0;
  int64_t valid_pairs = 0;
  std::string device;                    // "cpu", "cuda:0"
  std::optional<std::string> processor;  // "<CPU model>, 2 threads", when known
};

// An update was trained.
struct StepDone {
  ProgressLine line;                   // the status line: tokens/s since the session began
  std::optional<ProgressLine> window;  // at a log step: the loss and tokens/s of the window
  double train_seconds = 0.0;          // training time so far
};

// The validation sets were scored (at an epoch's end, or every train.valid_every steps).
struct ValidationDone {
  int64_t epoch = 0;  // 1-based epoch the step belongs to
  int64_t step = 0;
  double train_seconds = 0.0;
  ValidationResult result;
  double seconds = 0.0;  // the validation's own time, best.pt included
  // The best-checkpoint keeper's verdict (BestKeeper::judge): best.pt was written, or this many
  // validations in a row have not improved on it.
  bool is_best = false;
  int64_t validations_without_improvement = 0;
};

// An epoch ended and checkpoint.pt holds it.
struct EpochDone {
  int64_t epoch = 0;  // epochs completed
  int64_t epochs = 0;
  int64_t step = 0;
  double train_loss = 0.0;
  double lr = 0.0;
  double train_seconds = 0.0;
  int64_t target_tokens = 0;  // real target tokens trained on so far
  // The validation at the epoch's end; absent with train.valid_every, and then the epoch says
  // nothing about validation. Its result has no tokens when there are no validation pairs.
  std::optional<ValidationDone> validation;
};

enum class CheckpointKind {
  kLatest,       // checkpoint.pt: model, optimiser and progress
  kBest,         // best.pt
  kEpochWeights  // epoch-N.pt: the weights at an epoch's end (train.keep_epochs, average_last)
};

struct CheckpointSaved {
  CheckpointKind kind = CheckpointKind::kLatest;
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;
};

// The mean of the last epochs' weights (train.average_last) was validated.
struct AverageDone {
  int64_t checkpoints = 0;
  bool with_current = false;  // the weights training stopped at inside an epoch are among them
  ValidationResult result;
  bool is_kept = false;  // better than best.pt, so averaged.pt was written
  std::optional<BestSoFar> best;
};

// Training ended (planned end, early stop, limit, interruption, divergence, time budget).
struct Stopped {
  StopReason reason = StopReason::kFinished;
  std::string message;
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;
  int64_t batch = 0;
  double train_seconds = 0.0;
  std::optional<BestSoFar> best;  // rank 0 (or the only process), once best.pt exists
};

class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void run_started(const RunStarted& /*event*/) {}
  virtual void step_done(const StepDone& /*event*/) {}
  // A stop when this observer ends training after the validation or epoch.
  virtual std::optional<TrainStop> validation_done(const ValidationDone& /*event*/) {
    return std::nullopt;
  }
  virtual std::optional<TrainStop> epoch_done(const EpochDone& /*event*/) { return std::nullopt; }
  virtual void checkpoint_saved(const CheckpointSaved& /*event*/) {}
  virtual void average_done(const AverageDone& /*event*/) {}
  virtual void stopped(const Stopped& /*event*/) {}
};

// The observers of one run, told in the order they were added; every one is told of every event.
class TrainingObservers {
 public:
  void add(std::shared_ptr<TrainingObserver> observer);

  void run_started(const RunStarted& event);
  void step_done(const StepDone& event);
  // The first stop that an observer asks for.
  std::optional<TrainStop> validation_done(const ValidationDone& event);
  std::optional<TrainStop> epoch_done(const EpochDone& event);
  void checkpoint_saved(const CheckpointSaved& event);
  void average_done(const AverageDone& event);
  void stopped(const Stopped& event);

 private:
  std::vector<std::shared_ptr<TrainingObserver>> observers_;
};

}  // namespace nmt::train
