// The observers of training events (nmt/train/training_events.h) and the best-checkpoint keeper
// whose verdict is part of each validation event:
//
//   BestKeeper        decides whether a validation beats best.pt and writes it; counts the
//                     validations without improvement (its state goes into every checkpoint)
//   MetricsWriter     RUN/metrics.jsonl: one record per event (nmt/metrics_jsonl.h)
//   ConsoleReport     what a person sees: the progress line or log lines, a line per validation,
//                     epoch and average, and best.pt at the end
//   EarlyStopping     stops after train.early_stopping validations without improvement
//   EpochWeightsKept  removes epoch-N.pt once train.keep_epochs / average_last newer ones exist
//
// No Torch.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "nmt/metrics_jsonl.h"
#include "nmt/run_dir.h"
#include "nmt/train/training_events.h"

namespace nmt::train {

// "validation loss", "validation BLEU", "validation chrF"
const char* metric_label(BestMetric metric);

// "valid loss 2.1234 (ppl 8.37), BLEU 23.41, chrF 45.10"
std::string describe_validation(const ValidationResult& result);

class BestKeeper {
 public:
  // What a checkpoint keeps of the keeper, so that a resumed run judges as an uninterrupted one.
  struct State {
    double best_score = std::numeric_limits<double>::quiet_NaN();  // NaN before best.pt exists
    int64_t best_step = 0;
    int64_t validations_without_improvement = 0;
  };
  // save_best writes best.pt; it is called after the keeper's state took the new best, so that
  // best.pt holds it.
  BestKeeper(BestMetric metric, State state, std::function<void()> save_best);

  // Sets validation.is_best (then writes best.pt) and validations_without_improvement. A
  // validation without pairs, or whose loss is not finite, changes nothing.
  void judge(ValidationDone& validation);

  const State& state() const { return state_; }
  // best.pt's score and step, once a validation was judged best.
  std::optional<BestSoFar> best() const;

 private:
  BestMetric metric_;
  State state_;
  std::function<void()> save_best_;
};

class MetricsWriter final : public TrainingObserver {
 public:
  explicit MetricsWriter(const std::string& path);

  void run_started(const RunStarted& event) override;
  void step_done(const StepDone& event) override;  // a record at log steps
  std::optional<TrainStop> validation_done(const ValidationDone& event) override;
  std::optional<TrainStop> epoch_done(const EpochDone& event) override;
  void average_done(const AverageDone& event) override;
  void stopped(const Stopped& event) override;

 private:
  MetricsLog log_;
};

class ConsoleReport final : public TrainingObserver {
 public:
  // is_terminal: a status line redrawn in place; otherwise a log line every log_every steps.
  explicit ConsoleReport(bool is_terminal);

  void step_done(const StepDone& event) override;
  std::optional<TrainStop> validation_done(const ValidationDone& event) override;
  std::optional<TrainStop> epoch_done(const EpochDone& event) override;
  void average_done(const AverageDone& event) override;
  void stopped(const Stopped& event) override;

 private:
  ProgressDisplay display_;  // cleared before each line of its own and at the end
};

class EarlyStopping final : public TrainingObserver {
 public:
  // patience: train.early_stopping (0: never); counts_validations: with train.valid_every the
  // message counts validations, otherwise epochs.
  EarlyStopping(int64_t patience, BestMetric metric, bool counts_validations);

  std::optional<TrainStop> validation_done(const ValidationDone& event) override;
  std::optional<TrainStop> epoch_done(const EpochDone& event) override;

 private:
  int64_t patience_;
  BestMetric metric_;
  bool counts_validations_;
};

class EpochWeightsKept final : public TrainingObserver {
 public:
  // kept: how many epochs' weights stay, newest first.
  EpochWeightsKept(RunDir run, int64_t kept);

  void checkpoint_saved(const CheckpointSaved& event) override;

 private:
  RunDir run_;
  int64_t kept_;
};

}  // namespace nmt::train
