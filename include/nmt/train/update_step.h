// One optimiser update: the one thing training (nmt/train/trainer.h) and `nmt bench train` share.
// This rank's micro-batches of the update are collated and the ranks agree on its tokens and on
// stopping (one small all-reduce); each micro-batch goes forward and backward in the chosen
// precision (bf16 autocast where train.precision asks for it); the gradients are summed over the
// ranks, clipped, and Adam steps with the schedule's learning rate.
#pragma once

#include <c10/core/Device.h>

#include <memory>
#include <vector>

#include "nmt/data/batch_plan.h"
#include "nmt/model/transformer.h"
#include "nmt/train/adam.h"
#include "nmt/train/communicator.h"
#include "nmt/train/loss.h"
#include "nmt/train/options.h"

namespace nmt::train {

// Seconds per phase of one step (measured only when asked: it synchronises CUDA).
struct StepTimes {
  double data = 0.0;       // moving the batch to the device
  double forward = 0.0;    // model and loss
  double backward = 0.0;   // gradients
  double optimizer = 0.0;  // clipping and Adam
};

struct StepResult {
  LossSum loss;  // sum over the batch's target tokens, and their count (device tensors)
  StepTimes times;
};

// This rank's share of one update of an epoch's plan, and what every rank agreed on.
struct UpdateBatches {
  std::vector<data::Batch> mine;   // this rank's micro-batches (update_freq at most; maybe none)
  int64_t tokens = 0;              // real target tokens of the whole update, all ranks
  bool is_stop_requested = false;  // some rank was asked to stop
  bool is_out_of_time = false;     // rank 0 has spent train.max_time
  double collate_seconds = 0.0;    // collating this rank's batches
};

// The batches of an epoch (0-based) of pairs, as training plans them from options.
data::BatchPlan plan_epoch(const data::EncodedCorpus& pairs,
                           const TrainOptions& options,
                           int64_t epoch);

class UpdateStep {
 public:
  // model must already be on device; communicator is null for a single process.
  UpdateStep(model::Transformer model,
             const TrainOptions& options,
             c10::Device device,
             std::shared_ptr<Communicator> communicator);

  // Batches of the plan one update covers: ranks x update_freq.
  int64_t batches_per_update() const;

  // The update that starts at batch `first` of plan: this rank's micro-batches, collated from
  // pairs, and the agreement of all ranks on its tokens and on stopping (a stop request of any
  // rank; is_out_of_time as rank 0 says).
  UpdateBatches gather(const data::EncodedCorpus& pairs,
                       const data::BatchPlan& plan,
                       int64_t first,
                       bool stop_requested,
                       bool is_out_of_time);

  // One optimiser update from this rank's micro-batches (update_freq of them, fewer at the end of
  // an epoch, possibly none). Each micro-batch's loss sum is divided by update_tokens, the real
  // target tokens of the whole update on all ranks, so the summed gradient is the mean over the
  // update's tokens however they are spread. Returns the update's loss sum and tokens (all ranks).
  // With measure_phases the phases are timed.
  StepResult run(const std::vector<data::Batch>& micro_batches,
                 int64_t update_tokens,
                 bool measure_phases = false);
  // run() on one CPU batch.
  StepResult run(const data::Batch& batch, bool measure_phases = false);

  Adam& optimizer() { return optimizer_; }
  const std::vector<at::Tensor>& parameters() const { return parameters_; }

 private:
  // The batches of the epoch's plan this rank trains in the update starting at batch `first`.
  std::vector<int64_t> rank_batches(int64_t first, int64_t batches) const;

  model::Transformer model_;
  TrainOptions options_;
  c10::Device device_;
  std::shared_ptr<Communicator> communicator_;
  std::vector<at::Tensor> parameters_;
  Adam optimizer_;
};

}  // namespace nmt::train
