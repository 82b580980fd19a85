// Checkpoints: model weights, optimiser state, training progress, random generator state and the
// run's configuration in one LibTorch archive. Saves go to "<path>.tmp" and are renamed over
// path, so a crash during a save never destroys the previous checkpoint. Tensors are loaded onto
// the requested device, so a checkpoint saved on CUDA loads on the CPU and the other way round.
// Throws CheckpointError naming the file and the missing or mismatched entry; never logs.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <limits>
#include <string>

#include "nmt/model/transformer.h"
#include "nmt/train/adam.h"

namespace nmt::train {

// Where training stands; everything needed besides the model and optimiser to resume exactly.
struct TrainingState {
  int64_t epoch = 0;          // current epoch, 0-based
  int64_t batch = 0;          // next batch of that epoch's plan
  int64_t step = 0;           // optimiser updates so far
  int64_t target_tokens = 0;  // real target tokens trained on so far
  // best.pt's value of train.best_metric (validation loss, BLEU or chrF); NaN before the first
  // validation.
  double best_score = std::numeric_limits<double>::quiet_NaN();
  int64_t best_step = 0;  // the step best.pt was saved at
  int64_t validations_without_improvement = 0;
  double train_seconds = 0.0;  // wall time spent training so far
  // The current epoch's label-smoothed loss summed over its target tokens so far, and those
  // tokens, so that an epoch resumed in its middle still reports its whole train_loss.
  double epoch_loss_sum = 0.0;
  int64_t epoch_loss_tokens = 0;
};

// Writes a checkpoint. optimizer may be null (weights-only files such as averaged models).
void save_checkpoint(const std::string& path,
                     model::Transformer& model,
                     const Adam* optimizer,
                     const TrainingState& progress,
                     const std::string& config_json);

// The configuration stored in a checkpoint (JSON text).
std::string checkpoint_config(const std::string& path);

// Loads weights into model (moved to device first by the caller). When optimizer is given, also
// its state; when restore_rng, the default generators of `device`. Returns the progress.
TrainingState load_checkpoint(const std::string& path,
                              model::Transformer& model,
                              Adam* optimizer,
                              const c10::Device& device,
                              bool restore_rng);

// Mean of the weights of several checkpoints, loaded into model (Vaswani et al. 2017, 6.1).
void load_averaged_weights(const std::vector<std::string>& paths,
                           model::Transformer& model,
                           const c10::Device& device);

}  // namespace nmt::train
