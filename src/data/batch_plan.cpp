#include "nmt/data/batch_plan.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "data/random.h"
#include "nmt/error.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::data {
namespace {

uint64_t epoch_seed(uint64_t seed, int64_t epoch) {
  SplitMix64 mix(seed ^ (0x5851F42D4C957F2Dull * static_cast<uint64_t>(epoch + 1)));
  return mix.next();
}

// Pairs between two releases of a mapped corpus's pages while its lengths are read in order: 16 MiB
// of offsets.
constexpr std::size_t kPairsBetweenReleases = std::size_t{1} << 20;

uint64_t length_key(const EncodedCorpus& pairs, std::size_t pair) {
  return (static_cast<uint64_t>(pairs.target_length(pair)) << 32) | pairs.source_length(pair);
}

// Where batches start in a block's pairs sorted by length (runs of equal lengths, by increasing
// key) when each holds at most max_tokens padded target tokens (<EOS> included),
// rows * longest <= max_tokens; a pair longer than that has a batch of its own. The lengths only
// grow, so a batch's last pair is its longest.
std::vector<uint32_t> starts_by_tokens(const std::vector<LengthRun>& runs, int64_t max_tokens) {
  std::vector<uint32_t> starts;
  std::size_t rows = 0;
  uint32_t i = 0;
  for (const LengthRun& run : runs) {
    const std::size_t longest = (run.key >> 32) + 1;
    for (uint32_t j = 0; j < run.pairs; ++j, ++i) {
      if (i == 0 || (rows + 1) * longest > static_cast<std::size_t>(max_tokens)) {
        starts.push_back(i);
        rows = 0;
      }
      ++rows;
    }
  }
  starts.push_back(i);
  return starts;
}

std::vector<LengthRun> sorted_runs(const std::unordered_map<uint64_t, uint32_t>& counts) {
  std::vector<LengthRun> runs;
  runs.reserve(counts.size());
  for (const auto& [key, count] : counts) runs.push_back({key, count});
  std::sort(runs.begin(), runs.end(),
            [](const LengthRun& a, const LengthRun& b) { return a.key < b.key; });
  return runs;
}

// Streams of the generator apart from the batch order's: which block a pair falls in, and each
// block's own order (block 0's is the one an epoch of a single block has always had).
constexpr uint64_t kDealStream = 0x94D049BB133111EBull;
constexpr uint64_t kBlockStream = 0x2545F4914F6CDD1Dull;

enum class Side { kSource, kTarget };

// The rows' ids of one side, padded to the longest, with an optional id before (prefix >= 0) and
// after (suffix >= 0) each row's.
at::Tensor pad_rows(const std::vector<EncodedPair>& rows,
                    Side side,
                    int64_t prefix,
                    int64_t suffix) {
  const auto ids = [side](const EncodedPair& pair) -> const std::vector<int64_t>& {
    return side == Side::kSource ? pair.source : pair.target;
  };
  std::size_t longest = 0;
  for (const EncodedPair& row : rows) longest = std::max(longest, ids(row).size());
  const auto width = static_cast<int64_t>(longest) + (prefix >= 0 ? 1 : 0) + (suffix >= 0 ? 1 : 0);
  at::Tensor out = at::full({static_cast<int64_t>(rows.size()), std::max<int64_t>(width, 1)},
                            text::kPadId, at::kLong);
  int64_t* data = out.data_ptr<int64_t>();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    int64_t* cursor = data + static_cast<int64_t>(r) * out.size(1);
    if (prefix >= 0) *cursor++ = prefix;
    cursor = std::copy(ids(rows[r]).begin(), ids(rows[r]).end(), cursor);
    if (suffix >= 0) *cursor = suffix;
  }
  return out;
}

// Pairs chunk by chunk: encode(i) for the pairs of a chunk on LibTorch's intra-op threads, then
// appended in order, so that the result is the same for any thread count and only one chunk is
// ever held as a vector per pair. The threads take blocks of pairs as they become free: LibTorch
// gives each an equal share at once, and one slowed down by another thread of the process (the
// data phase reads the next chunk meanwhile) would keep the others waiting.
template <class Encode>
EncodedCorpus encode_in_chunks(std::size_t count, const Encode& encode) {
  constexpr std::size_t kChunk = 1 << 16;
  constexpr std::size_t kBlock = 256;
  EncodedCorpusBuilder builder;
  std::vector<EncodedPair> chunk;
  for (std::size_t first = 0; first < count; first += kChunk) {
    const std::size_t last = std::min(count, first + kChunk);
    chunk.assign(last - first, {});
    const std::size_t blocks = (chunk.size() + kBlock - 1) / kBlock;
    std::atomic<std::size_t> next_block{0};
    at::parallel_for(0, static_cast<int64_t>(blocks), 1, [&](int64_t, int64_t) {
      for (std::size_t block = next_block++; block < blocks; block = next_block++) {
        const std::size_t end = std::min(chunk.size(), (block + 1) * kBlock);
        for (std::size_t i = block * kBlock; i < end; ++i) chunk[i] = encode(first + i);
      }
    });
    for (const EncodedPair& pair : chunk) builder.add(pair.source, pair.target);
  }
  return std::move(builder).finish();
}

}  // namespace

EncodedCorpus encode_pairs(const std::vector<SentencePair>& pairs,
                           const text::TokenizerPair& tokenizers) {
  return encode_in_chunks(pairs.size(), [&](std::size_t index) {
    return EncodedPair{tokenizers.source->encode(pairs[index].source),
                       tokenizers.target->encode(pairs[index].target)};
  });
}

SubwordSampler::SubwordSampler(const text::TokenizerPair& tokenizers,
                               const text::SubwordSampling& sampling,
                               uint64_t seed,
                               int64_t epoch)
    : source_(dynamic_cast<const text::SentencePieceTokenizer*>(tokenizers.source.get())),
      target_(dynamic_cast<const text::SentencePieceTokenizer*>(tokenizers.target.get())),
      sampling_(sampling),
      // A different stream from the batch order's, which epoch_seed(seed, epoch) also starts.
      base_(epoch_seed(seed ^ 0xD1B54A32D192ED03ull, epoch)) {
  if (!source_ || !target_) {
    throw ConfigError("text.tokenizer", "subword sampling needs SentencePiece models");
  }
}

EncodedPair SubwordSampler::sample(const SentencePair& pair, std::size_t index) const {
  const auto seed_of = [this, index](uint64_t side) {
    SplitMix64 mix(base_ + 2 * static_cast<uint64_t>(index) + side);
    return static_cast<uint32_t>(mix.next());
  };
  return EncodedPair{source_->sample(pair.source, sampling_, seed_of(0)),
                     target_->sample(pair.target, sampling_, seed_of(1))};
}

EncodedCorpus sample_pairs(const std::vector<SentencePair>& pairs,
                           const text::TokenizerPair& tokenizers,
                           const text::SubwordSampling& sampling,
                           uint64_t seed,
                           int64_t epoch,
                           std::size_t first_index) {
  const SubwordSampler sampler(tokenizers, sampling, seed, epoch);
  return encode_in_chunks(pairs.size(), [&](std::size_t index) {
    return sampler.sample(pairs[index], first_index + index);
  });
}

BatchPlan plan_batches(const EncodedCorpus& pairs, const BatchingOptions& options, int64_t epoch) {
  if (pairs.size() > std::numeric_limits<uint32_t>::max() - 1) {
    throw DataError(pairs.origin(),
                    fmt::format("{} pairs; training takes at most {} a run", pairs.size(),
                                std::numeric_limits<uint32_t>::max() - 1));
  }
  BatchPlan plan;
  plan.pairs_ = pairs;
  plan.options_ = options;
  plan.options_.block_pairs = std::max<std::size_t>(1, options.block_pairs);
  plan.epoch_ = epoch;
  const std::size_t block_pairs = plan.options_.block_pairs;
  plan.blocks_ = std::max<std::size_t>(1, (pairs.size() + block_pairs - 1) / block_pairs);
  plan.deal_seed_ = epoch_seed(options.seed ^ kDealStream, epoch);
  std::vector<std::size_t> batches(plan.blocks_);
  if (options.max_tokens <= 0) {
    std::vector<std::size_t> block_sizes(plan.blocks_);
    for (std::size_t pair = 0; pair < pairs.size(); ++pair) ++block_sizes[plan.block_of(pair)];
    const auto rows = static_cast<std::size_t>(options.batch_size);
    for (std::size_t block = 0; block < plan.blocks_; ++block) {
      batches[block] = (block_sizes[block] + rows - 1) / rows;
    }
  } else {
    std::vector<std::unordered_map<uint64_t, uint32_t>> counts(plan.blocks_);
    for (std::size_t pair = 0; pair < pairs.size(); ++pair) {
      if (pair % kPairsBetweenReleases == 0) pairs.release_pages();
      ++counts[plan.block_of(pair)][length_key(pairs, pair)];
    }
    pairs.release_pages();
    for (std::size_t block = 0; block < plan.blocks_; ++block) {
      plan.runs_.push_back(sorted_runs(counts[block]));
      counts[block] = {};
      batches[block] = starts_by_tokens(plan.runs_.back(), options.max_tokens).size() - 1;
    }
  }
  plan.block_ends_.resize(plan.blocks_);
  std::partial_sum(batches.begin(), batches.end(), plan.block_ends_.begin());
  return plan;
}

std::size_t BatchPlan::block_of(std::size_t pair) const {
  if (blocks_ == 1) return 0;
  if (!options_.shuffle) return pair / options_.block_pairs;
  return static_cast<std::size_t>(SplitMix64(deal_seed_ + pair).next() % blocks_);
}

// The block's pairs in index order, then shuffled (sentence batches) or sorted by length with
// equal lengths in random order (token batches, a counting sort from the block's runs).
BatchPlan::Block BatchPlan::plan_block(std::size_t block) const {
  SplitMix64 random(epoch_seed(options_.seed ^ (block * kBlockStream), epoch_));
  Block plan;
  if (options_.max_tokens <= 0) {
    plan.pairs.reserve(pairs_.size() / blocks_ + 1);
    for (std::size_t pair = 0; pair < pairs_.size(); ++pair) {
      if (block_of(pair) == block) plan.pairs.push_back(static_cast<uint32_t>(pair));
    }
    if (options_.shuffle) shuffle(plan.pairs, random);
    const auto rows = static_cast<std::size_t>(options_.batch_size);
    for (std::size_t start = 0; start < plan.pairs.size(); start += rows) {
      plan.starts.push_back(static_cast<uint32_t>(start));
    }
    plan.starts.push_back(static_cast<uint32_t>(plan.pairs.size()));
  } else {
    const std::vector<LengthRun>& runs = runs_[block];
    std::unordered_map<uint64_t, uint32_t> next;  // length key -> next position
    uint32_t position = 0;
    for (const LengthRun& run : runs) {
      next[run.key] = position;
      position += run.pairs;
    }
    plan.pairs.resize(position);
    for (std::size_t pair = 0; pair < pairs_.size(); ++pair) {
      if (pair % kPairsBetweenReleases == 0) pairs_.release_pages();
      if (block_of(pair) == block) {
        plan.pairs[next[length_key(pairs_, pair)]++] = static_cast<uint32_t>(pair);
      }
    }
    pairs_.release_pages();
    if (options_.shuffle) {
      uint32_t first = 0;
      for (const LengthRun& run : runs) {
        shuffle(plan.pairs.data() + first, run.pairs, random);
        first += run.pairs;
      }
    }
    plan.starts = starts_by_tokens(runs, options_.max_tokens);
  }
  plan.order.resize(plan.starts.size() - 1);
  std::iota(plan.order.begin(), plan.order.end(), 0);
  if (options_.shuffle && options_.max_tokens > 0) shuffle(plan.order, random);
  return plan;
}

std::vector<std::size_t> BatchPlan::batch(std::size_t b) const {
  if (b >= size()) {
    throw std::out_of_range(fmt::format("batch {} of an epoch of {}", b, size()));
  }
  const auto block = static_cast<std::size_t>(
      std::upper_bound(block_ends_.begin(), block_ends_.end(), b) - block_ends_.begin());
  if (block != planned_block_) {
    planned_ = plan_block(block);
    planned_block_ = block;
  }
  const uint32_t k = planned_.order[b - (block == 0 ? 0 : block_ends_[block - 1])];
  return {planned_.pairs.begin() + planned_.starts[k],
          planned_.pairs.begin() + planned_.starts[k + 1]};
}

bool BatchPlan::operator==(const BatchPlan& other) const {
  if (size() != other.size()) return false;
  for (std::size_t b = 0; b < size(); ++b) {
    if (batch(b) != other.batch(b)) return false;
  }
  return true;
}

Batch collate(const EncodedCorpus& pairs, const std::vector<std::size_t>& indices) {
  Batch batch;
  std::vector<EncodedPair> rows;
  rows.reserve(indices.size());
  for (const std::size_t index : indices) {
    rows.push_back(pairs.pair(index));
    batch.source_tokens += static_cast<int64_t>(rows.back().source.size());
    batch.target_tokens += static_cast<int64_t>(rows.back().target.size()) + 1;
  }
  batch.source = pad_rows(rows, Side::kSource, -1, -1);
  batch.target_in = pad_rows(rows, Side::kTarget, text::kSosId, -1);
  batch.target_out = pad_rows(rows, Side::kTarget, -1, text::kEosId);
  batch.padded_target_tokens = batch.target_out.numel();
  return batch;
}

}  // namespace nmt::data
