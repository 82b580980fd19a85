// BLEU and chrF of the validation split while training (train.valid_bleu_sentences): the first N
// validation pairs are translated by the model being trained, greedily or with beam search of
// train.valid_beam_size, in fp32, and scored against their targets the way `nmt eval --split valid`
// scores them. Lives in run/ because the trainer may not depend on decoding or scoring.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <vector>

#include "nmt/run/config.h"
#include "nmt/data/corpus.h"
#include "nmt/text/tokenizer.h"
#include "nmt/train/validation.h"

namespace nmt::run {

using ValidationScorer = std::function<train::TranslationScores(model::Transformer&)>;

// Empty when the configuration asks for no translations or the validation split is empty.
ValidationScorer make_validation_scorer(const Config& config,
                                        const text::TokenizerPair& tokenizers,
                                        const std::vector<data::SentencePair>& valid,
                                        const c10::Device& device);

}  // namespace nmt::run
