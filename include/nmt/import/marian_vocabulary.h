// The order of an imported Marian vocabulary in nmt's ids. nmt's models and searches take ids 0-3
// as <PAD> <SOS> <EOS> <UNK> (text/vocab.h); Marian's put </s> at 0, <unk> at 1 and <pad> (also
// the decoder's start) last. Rather than teach every decoder other special ids, an import reorders
// the vocabulary and with it every row of the embeddings, the output layer and its bias:
//
//   nmt 0 <PAD>  <- Marian's pad row       nmt 2 <EOS> <- Marian's </s>
//   nmt 1 <SOS>  <- its decoder start row  nmt 3 <UNK> <- Marian's <unk>
//   nmt 4...     <- every other Marian id, in Marian's order
//
// One row more than Marian's when pad is the decoder start (OPUS-MT's case): that row appears as
// both <PAD> and <SOS>. nmt never emits either, as transformers' generate() never emits pad
// (bad_words_ids [[pad]]), so the two models score every output alike. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/import/marian_directory.h"

namespace nmt::import {

struct NmtVocabularyOrder {
  std::vector<std::string> pieces;   // nmt id -> piece; ids 0-3 as nmt names its specials
  std::vector<int64_t> marian_rows;  // nmt id -> the Marian id whose embedding row it takes
};

// The order of one side's vocabulary (for a shared vocabulary, of both).
NmtVocabularyOrder nmt_vocabulary_order(const MarianVocabulary& vocabulary, const MarianIds& ids);

// The vocabulary file's text for text::Vocab (one piece per line).
std::string vocabulary_file_text(const NmtVocabularyOrder& order);

}  // namespace nmt::import
