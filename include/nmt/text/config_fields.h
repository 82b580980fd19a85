// The text section: cleaning and the tokenizers. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/text/tokenizer.h"

namespace nmt::text {

inline const config::Choices<CleanMode> kCleanModes = {{"notebook", CleanMode::kNotebook},
                                                       {"normalize", CleanMode::kNormalize}};
inline const config::Choices<TokenizerKind> kTokenizers = {
    {"word", TokenizerKind::kWord},
    {"sentencepiece", TokenizerKind::kSentencePiece},
    {"marian", TokenizerKind::kMarian}};
inline const config::Choices<SubwordModel> kSubwordModels = {{"unigram", SubwordModel::kUnigram},
                                                             {"bpe", SubwordModel::kBpe}};

template <class Fields>
void text_fields(Fields& f, TextOptions& o) {
  f("clean", o.clean, kCleanModes);
  f("tokenizer", o.tokenizer, kTokenizers);
  f("min_freq", o.min_freq, config::IntKind::kPositive);
  f("vocab_size", o.vocab_size, config::IntKind::kPositive);
  f("shared_vocab", o.shared_vocab);
  f("model_type", o.model_type, kSubwordModels);
  f("character_coverage", o.character_coverage);
  f("vocab_max_pairs", o.vocab_max_pairs, config::IntKind::kNonNegative);
  f("sampling_nbest", o.sampling_nbest, config::IntKind::kAny);
  f("sampling_alpha", o.sampling_alpha);
  f("bpe_dropout", o.bpe_dropout);
  f("vocab_from", o.vocab_from);
}

}  // namespace nmt::text
