// Teacher-forced loss of a model on held-out pairs: the label-smoothed criterion the model was
// trained with, and the plain negative log-likelihood that perplexity is based on. Used after each
// epoch by the trainer and by `nmt eval`. Runs without gradients; restores the model's mode.
#pragma once

#include <c10/core/Device.h>

#include <vector>

#include "nmt/data/batcher.h"
#include "nmt/model/transformer.h"

namespace nmt::train {

struct ValidationResult {
  double loss = 0.0;   // label-smoothed cross-entropy per target token (the training criterion)
  double nll = 0.0;    // plain negative log-likelihood per target token; perplexity = exp(nll)
  int64_t tokens = 0;  // target tokens scored (<EOS> included); 0 when pairs is empty
};

// use_bf16: run the forward pass under bf16 autocast on device (see train::Precision).
ValidationResult evaluate_loss(model::Transformer& model,
                               const std::vector<data::EncodedPair>& pairs,
                               const data::BatchingOptions& batching,
                               double label_smoothing,
                               const c10::Device& device,
                               bool use_bf16);

}  // namespace nmt::train
