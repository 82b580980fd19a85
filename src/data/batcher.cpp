#include "nmt/data/batcher.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <numeric>

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

BatchPlan cut_by_sentences(const std::vector<std::size_t>& order, int64_t batch_size) {
  BatchPlan plan;
  for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(batch_size)) {
    const std::size_t end = std::min(order.size(), start + static_cast<std::size_t>(batch_size));
    plan.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(start),
                      order.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return plan;
}

BatchPlan cut_by_tokens(const EncodedCorpus& pairs,
                        const std::vector<std::size_t>& order,
                        int64_t max_tokens) {
  BatchPlan plan;
  std::vector<std::size_t> current;
  std::size_t longest = 0;
  for (const std::size_t index : order) {
    const std::size_t length = pairs.target_length(index) + 1;
    const std::size_t new_longest = std::max(longest, length);
    if (!current.empty() &&
        (current.size() + 1) * new_longest > static_cast<std::size_t>(max_tokens)) {
      plan.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(index);
    longest = std::max(longest, length);
  }
  if (!current.empty()) plan.push_back(std::move(current));
  return plan;
}

enum class Side { kSource, kTarget };

// The rows' ids of one side, padded to the longest, with an optional id before (prefix >= 0) and
// after (suffix >= 0) each row's.
at::Tensor pad_rows(const EncodedCorpus& pairs,
                    const std::vector<std::size_t>& rows,
                    Side side,
                    int64_t prefix,
                    int64_t suffix) {
  const auto length = [&pairs, side](std::size_t pair) {
    return side == Side::kSource ? pairs.source_length(pair) : pairs.target_length(pair);
  };
  std::size_t longest = 0;
  for (const std::size_t row : rows) longest = std::max(longest, length(row));
  const auto width = static_cast<int64_t>(longest) + (prefix >= 0 ? 1 : 0) + (suffix >= 0 ? 1 : 0);
  at::Tensor out = at::full({static_cast<int64_t>(rows.size()), std::max<int64_t>(width, 1)},
                            text::kPadId, at::kLong);
  int64_t* data = out.data_ptr<int64_t>();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    int64_t* cursor = data + static_cast<int64_t>(r) * out.size(1);
    if (prefix >= 0) *cursor++ = prefix;
    cursor = side == Side::kSource ? pairs.copy_source(rows[r], cursor)
                                   : pairs.copy_target(rows[r], cursor);
    if (suffix >= 0) *cursor = suffix;
  }
  return out;
}

// Pairs chunk by chunk: encode(i) for the pairs of a chunk on LibTorch's intra-op threads, then
// appended in order, so that the result is the same for any thread count and only one chunk is
// ever held as a vector per pair.
template <class Encode>
EncodedCorpus encode_in_chunks(std::size_t count, const Encode& encode) {
  constexpr std::size_t kChunk = 1 << 16;
  EncodedCorpusBuilder builder;
  std::vector<EncodedPair> chunk;
  for (std::size_t first = 0; first < count; first += kChunk) {
    const std::size_t last = std::min(count, first + kChunk);
    chunk.assign(last - first, {});
    at::parallel_for(static_cast<int64_t>(first), static_cast<int64_t>(last), 256,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         const auto index = static_cast<std::size_t>(i);
                         chunk[index - first] = encode(index);
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

EncodedCorpus sample_pairs(const std::vector<SentencePair>& pairs,
                           const text::TokenizerPair& tokenizers,
                           const text::SubwordSampling& sampling,
                           uint64_t seed,
                           int64_t epoch,
                           std::size_t first_index) {
  const auto* source = dynamic_cast<const text::SentencePieceTokenizer*>(tokenizers.source.get());
  const auto* target = dynamic_cast<const text::SentencePieceTokenizer*>(tokenizers.target.get());
  if (!source || !target) {
    throw ConfigError("text.tokenizer", "subword sampling needs SentencePiece models");
  }
  // A different stream from the batch order's, which epoch_seed(seed, epoch) also starts.
  const uint64_t base = epoch_seed(seed ^ 0xD1B54A32D192ED03ull, epoch);
  const auto seed_of = [base](std::size_t pair, uint64_t side) {
    SplitMix64 mix(base + 2 * static_cast<uint64_t>(pair) + side);
    return static_cast<uint32_t>(mix.next());
  };
  return encode_in_chunks(pairs.size(), [&](std::size_t index) {
    return EncodedPair{
        source->sample(pairs[index].source, sampling, seed_of(first_index + index, 0)),
        target->sample(pairs[index].target, sampling, seed_of(first_index + index, 1))};
  });
}

BatchPlan plan_batches(const EncodedCorpus& pairs, const BatchingOptions& options, int64_t epoch) {
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 random(epoch_seed(options.seed, epoch));
  if (options.shuffle) shuffle(order, random);
  if (options.max_tokens <= 0) return cut_by_sentences(order, options.batch_size);

  // Stable sort after the shuffle: equal lengths stay in random order.
  std::stable_sort(order.begin(), order.end(), [&pairs](std::size_t a, std::size_t b) {
    const std::size_t x = pairs.target_length(a);
    const std::size_t y = pairs.target_length(b);
    return x != y ? x < y : pairs.source_length(a) < pairs.source_length(b);
  });
  BatchPlan plan = cut_by_tokens(pairs, order, options.max_tokens);
  if (options.shuffle) shuffle(plan, random);
  return plan;
}

Batch collate(const EncodedCorpus& pairs, const std::vector<std::size_t>& indices) {
  Batch batch;
  for (const std::size_t index : indices) {
    batch.source_tokens += static_cast<int64_t>(pairs.source_length(index));
    batch.target_tokens += static_cast<int64_t>(pairs.target_length(index)) + 1;
  }
  batch.source = pad_rows(pairs, indices, Side::kSource, -1, -1);
  batch.target_in = pad_rows(pairs, indices, Side::kTarget, text::kSosId, -1);
  batch.target_out = pad_rows(pairs, indices, Side::kTarget, -1, text::kEosId);
  batch.padded_target_tokens = batch.target_out.numel();
  return batch;
}

}  // namespace nmt::data
