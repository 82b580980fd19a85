// The training loop: epochs over length-planned batches, label-smoothed cross-entropy, Adam with a
// learning-rate schedule and optional gradient clipping, validation after every epoch or every
// valid_every steps (loss, and BLEU/chrF of translations when the run layer gives a scorer),
// checkpoint.pt (latest, full state) and best.pt (best of train.best_metric) written atomically,
// early stopping, exact resume, Ctrl-C handling through a stop flag, a training time budget
// (train.max_time), and a stop with a clear message when the loss stops being finite (the last
// good checkpoint is kept).
//
// What follows from an update, a validation or an epoch — RUN/metrics.jsonl, the progress line or
// log lines, early stopping, which epochs' weights stay — is told as typed events to observers
// (nmt/train/training_events.h, training_observers.h); best.pt is the BestKeeper's. On CUDA the
// forward pass can run under bf16 autocast. Throws CheckpointError when a checkpoint cannot be
// written or read.
#pragma once

#include <c10/core/Device.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nmt/data/batch_plan.h"
#include "nmt/metrics_jsonl.h"
#include "nmt/model/transformer.h"
#include "nmt/run_dir.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/communicator.h"
#include "nmt/train/loss.h"
#include "nmt/train/options.h"
#include "nmt/train/training_events.h"
#include "nmt/train/training_observers.h"
#include "nmt/train/update_step.h"
#include "nmt/train/validation.h"

namespace nmt::train {

struct TrainerSetup {
  TrainOptions options;
  RunDir run;               // checkpoints and metrics.jsonl go here
  std::string config_json;  // the resolved configuration, stored in every checkpoint
  c10::Device device{c10::kCPU};
  bool is_terminal = false;  // draw a status line instead of log lines
  // The job's other ranks (data-parallel training), or null for a single process. Rank 0 alone
  // validates and writes checkpoints and metrics; every rank trains its share of each update.
  std::shared_ptr<Communicator> communicator{};
  // Translates the validation sources with the model and scores them. Decoding and BLEU live
  // above the trainer (run/), which sets this when train.valid_bleu_sentences > 0; unset,
  // validation measures the loss only.
  std::function<TranslationScores(model::Transformer&)> score_translations{};
  // The training pairs of an epoch (0-based), encoded anew for it (subword regularisation:
  // data::sample_pairs); it must depend on the epoch alone, so that a resumed run trains on what
  // an uninterrupted one does. Its time counts as training time. Unset: the pairs given to the
  // Trainer serve every epoch.
  std::function<data::EncodedCorpus(int64_t epoch)> encode_epoch{};
  // Told of every event after the trainer's own observers (metrics.jsonl, the console, early
  // stopping, the epochs' weights kept), on every rank.
  std::vector<std::shared_ptr<TrainingObserver>> observers{};
};

struct TrainResult {
  StopReason reason = StopReason::kFinished;
  TrainingState progress;
  std::string message;  // one sentence for the user
};

struct TrainingSession;  // what one run() carries between epochs (src/train/trainer_internal.h)
struct EpochOutcome;     // an epoch's mean loss, or why it stopped (src/train/trainer_internal.h)
struct UpdateEvents;     // what falls on an update: log, validate, save
                         // (src/train/update_events.h)
struct UpdateRecord;     // an update as progress reports it (src/train/update_events.h)

class Trainer {
 public:
  // model must already be on setup.device.
  Trainer(model::Transformer model,
          TrainerSetup setup,
          data::EncodedCorpus train,
          data::EncodedCorpus valid);
  // The best-checkpoint keeper writes best.pt through this trainer.
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Restores model, optimiser, progress and random generators from a full checkpoint.
  void resume(const std::string& checkpoint_path);

  // Trains until the configured epochs are done, early stopping triggers, the loss diverges or
  // stop_requested becomes true (then checkpoint.pt is saved at the current batch). When the
  // time budget (train.max_time) is spent, checkpoint.pt is saved at the current batch as for a
  // stop request, then the run ends as at its planned end: the weights it stopped at are validated
  // (unless that step was just validated) and averaged with the last epochs (train.average_last).
  TrainResult run(const std::atomic<bool>& stop_requested);

  // Loss of the validation pairs (model in eval mode, no gradients).
  ValidationResult validate();
  // The batches of an epoch (0-based).
  data::BatchPlan epoch_plan(int64_t epoch) const;

  const data::EncodedCorpus& train_pairs() const { return train_; }
  // Where training stands, the best-checkpoint keeper's state included.
  TrainingState progress() const;
  model::Transformer& model() { return model_; }

 private:
  bool uses_bf16() const;
  int world_size() const;
  // Rank 0 of a job, or the only process: validates and writes the run's files.
  bool is_writer() const;
  // The observers of one run() and the start of its progress.
  TrainingSession start_session();
  RunStarted run_started() const;
  // When max_steps is reached, a stop was requested or the time budget is spent: saves
  // checkpoint.pt and says why.
  std::optional<TrainStop> check_stop(TrainingSession& session,
                                      bool stop_requested,
                                      bool is_out_of_time);
  // The current step was validated when it was reached (epoch end, or valid_every).
  bool has_just_validated() const;
  // Trains the rest of the current epoch.
  EpochOutcome run_epoch(const std::atomic<bool>& stop_requested, TrainingSession& session);
  // Trains the update starting at batch `first` of plan; what falls on it follows.
  std::optional<TrainStop> run_update(TrainingSession& session,
                                      const data::BatchPlan& plan,
                                      int64_t first,
                                      bool stop_requested);
  // The epoch's pairs encoded anew (subword sampling), counted as training time.
  void encode_epoch();
  // The update starting at batch `first` of plan, with the ranks' agreement on stopping.
  UpdateBatches gather_update(const data::BatchPlan& plan, int64_t first, bool stop);
  // Trains an update and advances the progress to its step and to batch next_batch.
  StepResult train_update(const UpdateBatches& update, int64_t next_batch);
  // The update's loss per token where it is read (every update on the CPU, log steps elsewhere).
  std::optional<double> read_loss(const StepResult& step,
                                  int64_t tokens,
                                  const UpdateEvents& events) const;
  // Adds the update to the training time and the epoch's loss; tells the observers.
  void report(TrainingSession& session, const UpdateRecord& update, const UpdateEvents& events);
  // The validation or save that falls on the update; a stop when validation ends training.
  std::optional<TrainStop> run_events(TrainingSession& session, const UpdateEvents& events);
  // Ends the epoch on every rank: rank 0 validates (unless valid_every is set), saves and tells
  // the observers; a stop when the loss diverged or an observer stops training.
  std::optional<TrainStop> finish_epoch(TrainingSession& session, double train_loss);
  std::optional<TrainStop> save_epoch(TrainingSession& session, double train_loss);
  EpochDone epoch_done(double train_loss) const;
  // The epoch ended: the next one starts at its first batch with its loss sums at zero.
  void begin_next_epoch();
  // A validation every valid_every steps, on every rank (rank 0 validates, the others wait).
  std::optional<TrainStop> validate_between_epochs(TrainingSession& session);
  std::optional<TrainStop> validate_on_writer(TrainingSession& session);
  // The validation of the current weights, judged by the best-checkpoint keeper (which writes
  // best.pt when it improved); `epoch` is the 1-based epoch the step belongs to.
  ValidationDone validate_and_judge(TrainingSession& session, int64_t epoch);
  // Rank 0's stop (or none) reaches every rank.
  std::optional<TrainStop> share_verdict(std::optional<TrainStop> stop);
  // Fails when the ranks' parameters are no longer identical bit for bit.
  void check_ranks_agree(const char* when);
  // averaged.pt from the last average_last epochs' weights; with_current: the weights training
  // stopped at inside an epoch (checkpoint.pt) are the newest of them.
  void write_average(TrainingSession& session, bool with_current);
  // The stop that ends run(): the time budget's weights validated, the average written.
  TrainResult end_run(TrainingSession& session, std::optional<TrainStop> stop);
  enum class WithOptimizer : bool { kNo, kYes };
  // Writes the model (and optimiser) with progress(), the epoch's loss sums included.
  void save(const std::string& path, WithOptimizer with_optimizer);
  // checkpoint.pt, told to the observers.
  void save_latest(TrainingSession& session);
  // epoch_loss_ from progress_ (after a resume, or zero for a new epoch).
  void restore_epoch_loss();
  BestKeeper keeper_from(const TrainingState& state);

  model::Transformer model_;
  TrainerSetup setup_;
  data::EncodedCorpus train_;
  data::EncodedCorpus valid_;
  UpdateStep update_step_;
  // Where training stands; its best_* fields and validations_without_improvement are best_'s,
  // merged in by progress().
  TrainingState progress_;
  BestKeeper best_;
  LossSum epoch_loss_;  // the current epoch's loss and target tokens so far, on the device
};

}  // namespace nmt::train
