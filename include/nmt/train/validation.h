// Teacher-forced loss of a model on held-out pairs: the label-smoothed criterion the model was
// trained with, and the plain negative log-likelihood that perplexity is based on. Used after each
// epoch by the trainer and by `nmt eval`. Runs without gradients; restores the model's mode.
#pragma once

#include <c10/core/Device.h>

#include <optional>
#include <vector>

#include "nmt/data/batch_plan.h"
#include "nmt/model/transformer.h"
#include "nmt/train/options.h"
#include "nmt/train/validation_result.h"

namespace nmt::train {

// use_bf16: run the forward pass under bf16 autocast on device (see train::Precision).
ValidationResult evaluate_loss(model::Transformer& model,
                               const data::EncodedCorpus& pairs,
                               const data::BatchingOptions& batching,
                               double label_smoothing,
                               const c10::Device& device,
                               bool use_bf16);

}  // namespace nmt::train
