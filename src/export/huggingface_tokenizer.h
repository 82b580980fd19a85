// The tokenizer files of a transformers export, so that AutoTokenizer gives the ids nmt gives and
// decodes them to nmt's text. Private to src/export/.
//
// Runs of Marian's form keep MarianTokenizer: their SentencePiece models and vocab.json in the
// exported ids. nmt's own SentencePiece runs get PreTrainedTokenizerFast's tokenizer.json (the
// Hugging Face tokenizers library's format), whose every stage is one of nmt's:  is one of nmt's:
// the normalizer is text.clean "normalize" (NFKC, whitespace runs to the normalizer is text.clean
// "normalize" (NFKC, whitespace runs to one space, ends trimmed; nmt's whitespace is Python's
// str.split()'s), the pre-tokenizer and decoder are SentencePiece's "▁" word boundaries, the model
// is the unigram model with its scores and byte fallback, and nothing is added around a sentence
// (nmt's source has no </s>).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/run/config.h"
#include "nmt/text/sentencepiece_tokenizer.h"

namespace nmt::exporter::detail {

// vocab.json of one side of a Marian-form run: each piece's exported id (huggingface_id).
// Throws ConfigError for a piece that has the name of one of the specials.
nlohmann::json marian_vocabulary_json(const text::Tokenizer& tokenizer);

// tokenizer_config.json naming MarianTokenizer, the languages and the vocabularies.
nlohmann::json marian_tokenizer_config(const Config& config, int64_t max_positions);

// tokenizer.json of a unigram model; ids are nmt's, the four specials are added tokens.
nlohmann::json unigram_tokenizer_json(
    const std::vector<text::SentencePieceTokenizer::ScoredPiece>& pieces);

// tokenizer_config.json naming PreTrainedTokenizerFast and nmt's special tokens.
nlohmann::json fast_tokenizer_config(int64_t max_positions);

}  // namespace nmt::exporter::detail
