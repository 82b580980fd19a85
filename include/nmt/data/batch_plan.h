// Encoded sentence pairs collated into padded tensors, and the order batches come in.
//
// A batch plan is a list of batches, each a list of pair indices; it depends only on the pairs'
// lengths, the options and (seed, epoch), so a resumed run sees the same batches in the same order.
//  - max_tokens == 0: the notebook's batching, the pairs shuffled and cut every batch_size.
//  - max_tokens  > 0: length bucketing (fairseq --max-tokens, Marian --mini-batch-words): pairs
//    sorted by length (ties broken randomly), cut so that rows * longest target <= max_tokens, and
//    the batches shuffled.
// Tensors are int64 on the CPU: source [B, S], target_in (<SOS> y) and target_out (y <EOS>) [B, T],
// padded with <PAD>. Throws ConfigError for invalid options; never logs.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "nmt/data/corpus.h"
#include "nmt/data/encoded_corpus.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/tokenizer.h"

namespace nmt::data {

// Encodes cleaned pairs with the run's tokenizers, in memory, on LibTorch's intra-op threads (the
// same ids for any thread count).
EncodedCorpus encode_pairs(const std::vector<SentencePair>& pairs,
                           const text::TokenizerPair& tokenizers);

// One epoch's segmentations for subword regularisation: each side of a pair in a segmentation
// sampled by its SentencePiece tokenizer, pair i of the split drawn with generators seeded from
// (seed, epoch, i) alone, so that an epoch's pairs are the same whatever thread samples them, in
// whatever order, and a resumed run samples what an uninterrupted one does. Keeps references to
// the tokenizers. Throws ConfigError when a tokenizer is not a SentencePiece model.
class SubwordSampler {
 public:
  SubwordSampler(const text::TokenizerPair& tokenizers,
                 const text::SubwordSampling& sampling,
                 uint64_t seed,
                 int64_t epoch);
  // `pair` is pair `index` of the split.
  EncodedPair sample(const SentencePair& pair, std::size_t index) const;

 private:
  const text::SentencePieceTokenizer* source_;
  const text::SentencePieceTokenizer* target_;
  text::SubwordSampling sampling_;
  uint64_t base_;
};

// SubwordSampler's encodings of cleaned pairs on LibTorch's intra-op threads; pairs[0] is pair
// first_index of the split, so that a split encoded a chunk at a time samples what it would whole.
EncodedCorpus sample_pairs(const std::vector<SentencePair>& pairs,
                           const text::TokenizerPair& tokenizers,
                           const text::SubwordSampling& sampling,
                           uint64_t seed,
                           int64_t epoch,
                           std::size_t first_index = 0);

struct BatchingOptions {
  int64_t batch_size = 128;  // sentences per batch when max_tokens is 0
  int64_t max_tokens = 0;    // >0: padded target tokens per batch, with length bucketing
  uint64_t seed = 23;        // shuffling seed (combined with the epoch)
  bool shuffle = true;       // false: pairs in order (validation)
};

struct Batch {
  at::Tensor source;                 // [B, S]
  at::Tensor target_in;              // [B, T]
  at::Tensor target_out;             // [B, T]
  int64_t source_tokens = 0;         // real (non-pad) source tokens
  int64_t target_tokens = 0;         // real target tokens predicted (y and <EOS>)
  int64_t padded_target_tokens = 0;  // B * T
};

class BatchPlan;

// The batches of an epoch (0-based). Throws DataError naming pairs' origin for a corpus of 2^32
// pairs or more.
BatchPlan plan_batches(const EncodedCorpus& pairs, const BatchingOptions& options, int64_t epoch);

// The batches of an epoch, in the order training reads them: one array of 4-byte pair indices,
// the batches' bounds in it and their order, 4 bytes a pair and 8 a batch (a vector per batch took
// 8 a pair and about 40 a batch: 0.25 GB more for an epoch of 30M pairs).
class BatchPlan {
 public:
  std::size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }
  // The pair indices of the b-th batch to train, b < size().
  std::vector<std::size_t> batch(std::size_t b) const;

  bool operator==(const BatchPlan& other) const;
  bool operator!=(const BatchPlan& other) const { return !(*this == other); }

 private:
  friend BatchPlan plan_batches(const EncodedCorpus&, const BatchingOptions&, int64_t);

  std::vector<uint32_t> pairs_;   // the batches' pairs, one batch after another
  std::vector<uint32_t> starts_;  // batch k holds pairs_[starts_[k], starts_[k + 1])
  std::vector<uint32_t> order_;   // the batches k in training order
};

// Pads and stacks the given pairs.
Batch collate(const EncodedCorpus& pairs, const std::vector<std::size_t>& indices);

}  // namespace nmt::data
