// Real subword models for tests that need real pieces (sampling, encoding): a SentencePiece
// unigram model trained on both sides of sentence pairs and shared by them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/data/corpus.h"
#include "nmt/text/sentencepiece_tokenizer.h"

namespace nmt::testing {

inline text::TokenizerPair shared_unigram(const std::vector<data::SentencePair>& pairs,
                                          int64_t vocab_size) {
  text::TextOptions options;
  options.clean = text::CleanMode::kNormalize;
  options.tokenizer = text::TokenizerKind::kSentencePiece;
  options.vocab_size = vocab_size;
  std::vector<std::string> sentences;
  for (const auto& pair : pairs) {
    sentences.push_back(pair.source);
    sentences.push_back(pair.target);
  }
  auto tokenizer = std::make_shared<text::SentencePieceTokenizer>(
      text::SentencePieceTokenizer::train(sentences, options, 7));
  return {tokenizer, tokenizer};
}

}  // namespace nmt::testing
