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

namespace nmt::train {

// Scores of the validation sentences translated by the model (sacreBLEU-exact, nmt/eval).
struct TranslationScores {
  double bleu = 0.0;
  double chrf = 0.0;
  int64_t sentences = 0;
};

struct ValidationResult {
  double loss = 0.0;   // label-smoothed cross-entropy per target token (the training criterion)
  double nll = 0.0;    // plain negative log-likelihood per target token; perplexity = exp(nll)
  int64_t tokens = 0;  // target tokens scored (<EOS> included); 0 when pairs is empty
  std::optional<TranslationScores> translation;  // when validation translates
};

// The result's value of metric; NaN when it was not measured.
double metric_value(BestMetric metric, const ValidationResult& result);
// Whether value is better than best in metric (lower loss, higher BLEU or chrF); anything finite
// beats a best that is not (nothing validated yet).
bool improves(BestMetric metric, double value, double best);

// use_bf16: run the forward pass under bf16 autocast on device (see train::Precision).
ValidationResult evaluate_loss(model::Transformer& model,
                               const data::EncodedCorpus& pairs,
                               const data::BatchingOptions& batching,
                               double label_smoothing,
                               const c10::Device& device,
                               bool use_bf16);

}  // namespace nmt::train
