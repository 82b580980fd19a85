// Encoded sentence pairs collated into padded tensors, and the order batches come in.
//
// A batch plan is a list of batches, each a list of pair indices; it depends only on the pairs'
// lengths, the options and (seed, epoch), so a resumed run sees the same batches in the same order.
// An epoch of more than block_pairs pairs is dealt into blocks first, at random (in order without
// shuffling), and each block is planned on its own when training reaches it, so that the plan
// holds one block's pair indices and never the corpus's (Marian's --shuffle-in-ram is the opposite
// choice; fairseq holds every index). Within a block (the whole epoch when it fits one):
//  - max_tokens == 0: the notebook's batching, the pairs shuffled and cut every batch_size.
//  - max_tokens  > 0: length bucketing (fairseq --max-tokens, Marian --mini-batch-words): pairs
//    sorted by length (ties broken randomly), cut so that rows * longest target <= max_tokens, and
//    the batches shuffled.
// Tensors are int64 on the CPU: source [B, S], target_in (<SOS> y) and target_out (y <EOS>) [B, T],
// padded with <PAD>. Throws ConfigError for invalid options; never logs.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
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
  // Pairs planned together (0 is taken as 1): 4 bytes each in memory while their block trains
  // (4 MiB by default).
  std::size_t block_pairs = std::size_t{1} << 20;
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

// How many pairs of a block have one (target, source) length.
struct LengthRun {
  uint64_t key;  // target length << 32 | source length
  uint32_t pairs;
};

// The batches of an epoch (0-based). Throws DataError naming pairs' origin for a corpus of 2^32
// pairs or more. Reads every pair's lengths once; the plan shares the corpus's storage, so that it
// can plan a block later whatever becomes of `pairs`.
BatchPlan plan_batches(const EncodedCorpus& pairs, const BatchingOptions& options, int64_t epoch);

// The batches of an epoch, in the order training reads them: how many each block holds, and the
// block planned last (its pair indices, 4 bytes a pair, the batches' bounds and order, 8 bytes a
// batch). Planning a block reads the lengths of the whole corpus again (a mapped file's pages
// released as it goes), once per block of an epoch read in order.
class BatchPlan {
 public:
  std::size_t size() const { return block_ends_.empty() ? 0 : block_ends_.back(); }
  bool empty() const { return size() == 0; }
  // The pair indices of the b-th batch to train, b < size() (std::out_of_range otherwise). Plans
  // b's block when it is not the one planned last: call it from one thread at a time.
  std::vector<std::size_t> batch(std::size_t b) const;

  bool operator==(const BatchPlan& other) const;
  bool operator!=(const BatchPlan& other) const { return !(*this == other); }

 private:
  friend BatchPlan plan_batches(const EncodedCorpus&, const BatchingOptions&, int64_t);
  struct Block {
    std::vector<uint32_t> pairs;   // the batches' pairs, one batch after another
    std::vector<uint32_t> starts;  // batch k holds pairs[starts[k], starts[k + 1])
    std::vector<uint32_t> order;   // the batches k in training order
  };

  std::size_t block_of(std::size_t pair) const;
  Block plan_block(std::size_t block) const;

  EncodedCorpus pairs_;
  BatchingOptions options_;
  int64_t epoch_ = 0;
  std::size_t blocks_ = 0;
  uint64_t deal_seed_ = 0;
  std::vector<std::vector<LengthRun>> runs_;  // per block, by increasing key (max_tokens > 0)
  std::vector<std::size_t> block_ends_;       // the batches of blocks 0..j end at block_ends_[j]
  mutable std::size_t planned_block_ = SIZE_MAX;
  mutable Block planned_;
};

// Pads and stacks the given pairs.
Batch collate(const EncodedCorpus& pairs, const std::vector<std::size_t>& indices);

}  // namespace nmt::data
