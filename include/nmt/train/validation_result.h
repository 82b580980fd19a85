// What a validation measured (the loss of the held-out pairs, and the scores of their translations
// when validation translates) and how results compare under train.best_metric. No Torch: the
// training observers (nmt/train/training_observers.h) read these.
#pragma once

#include <cstdint>
#include <optional>

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

}  // namespace nmt::train
