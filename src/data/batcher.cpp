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

BatchPlan cut_by_tokens(const std::vector<EncodedPair>& pairs,
                        const std::vector<std::size_t>& order,
                        int64_t max_tokens) {
  BatchPlan plan;
  std::vector<std::size_t> current;
  std::size_t longest = 0;
  for (const std::size_t index : order) {
    const std::size_t length = pairs[index].target.size() + 1;
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

at::Tensor pad_rows(const std::vector<const std::vector<int64_t>*>& rows,
                    int64_t prefix,
                    int64_t suffix) {
  std::size_t longest = 0;
  for (const auto* row : rows) longest = std::max(longest, row->size());
  const auto width = static_cast<int64_t>(longest) + (prefix >= 0 ? 1 : 0) + (suffix >= 0 ? 1 : 0);
  at::Tensor out = at::full({static_cast<int64_t>(rows.size()), std::max<int64_t>(width, 1)},
                            text::kPadId, at::kLong);
  int64_t* data = out.data_ptr<int64_t>();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    int64_t* cursor = data + static_cast<int64_t>(r) * out.size(1);
    if (prefix >= 0) *cursor++ = prefix;
    cursor = std::copy(rows[r]->begin(), rows[r]->end(), cursor);
    if (suffix >= 0) *cursor = suffix;
  }
  return out;
}

}  // namespace

std::vector<EncodedPair> encode_pairs(const std::vector<SentencePair>& pairs,
                                      const text::TokenizerPair& tokenizers) {
  std::vector<EncodedPair> encoded;
  encoded.reserve(pairs.size());
  for (const auto& pair : pairs) {
    encoded.push_back(
        {tokenizers.source->encode(pair.source), tokenizers.target->encode(pair.target)});
  }
  return encoded;
}

std::vector<EncodedPair> sample_pairs(const std::vector<SentencePair>& pairs,
                                      const text::TokenizerPair& tokenizers,
                                      const text::SubwordSampling& sampling,
                                      uint64_t seed,
                                      int64_t epoch) {
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
  std::vector<EncodedPair> encoded(pairs.size());
  at::parallel_for(0, static_cast<int64_t>(pairs.size()), 256, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const auto index = static_cast<std::size_t>(i);
      encoded[index] = {source->sample(pairs[index].source, sampling, seed_of(index, 0)),
                        target->sample(pairs[index].target, sampling, seed_of(index, 1))};
    }
  });
  return encoded;
}

BatchPlan plan_batches(const std::vector<EncodedPair>& pairs,
                       const BatchingOptions& options,
                       int64_t epoch) {
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 random(epoch_seed(options.seed, epoch));
  if (options.shuffle) shuffle(order, random);
  if (options.max_tokens <= 0) return cut_by_sentences(order, options.batch_size);

  // Stable sort after the shuffle: equal lengths stay in random order.
  std::stable_sort(order.begin(), order.end(), [&pairs](std::size_t a, std::size_t b) {
    const auto& x = pairs[a];
    const auto& y = pairs[b];
    return x.target.size() != y.target.size() ? x.target.size() < y.target.size()
                                              : x.source.size() < y.source.size();
  });
  BatchPlan plan = cut_by_tokens(pairs, order, options.max_tokens);
  if (options.shuffle) shuffle(plan, random);
  return plan;
}

Batch collate(const std::vector<EncodedPair>& pairs, const std::vector<std::size_t>& indices) {
  std::vector<const std::vector<int64_t>*> sources;
  std::vector<const std::vector<int64_t>*> targets;
  Batch batch;
  for (const std::size_t index : indices) {
    sources.push_back(&pairs[index].source);
    targets.push_back(&pairs[index].target);
    batch.source_tokens += static_cast<int64_t>(pairs[index].source.size());
    batch.target_tokens += static_cast<int64_t>(pairs[index].target.size()) + 1;
  }
  batch.source = pad_rows(sources, -1, -1);
  batch.target_in = pad_rows(targets, text::kSosId, -1);
  batch.target_out = pad_rows(targets, -1, text::kEosId);
  batch.padded_target_tokens = batch.target_out.numel();
  return batch;
}

}  // namespace nmt::data
