#include "nmt/decode/search.h"

#include <ATen/ATen.h>

#include "nmt/text/vocab.h"

namespace nmt::decode {

int64_t output_limit(int64_t max_len, int64_t length) {
  return max_len > 0 ? max_len : 2 * length + 10;
}

at::Tensor sampling_logits(const at::Tensor& logits,
                           double temperature,
                           int64_t top_k,
                           double top_p) {
  at::Tensor scaled = logits.to(at::kFloat) / temperature;
  const int64_t vocab = scaled.size(-1);
  if (top_k > 0 && top_k < vocab) {
    const at::Tensor kth = std::get<0>(scaled.topk(top_k, -1)).select(-1, top_k - 1).unsqueeze(-1);
    scaled = scaled.masked_fill(scaled < kth, -std::numeric_limits<float>::infinity());
  }
  if (top_p < 1.0) {
    const auto [sorted, order] = scaled.sort(-1, /*descending=*/true);
    const at::Tensor probabilities = sorted.softmax(-1);
    // A token stays when the probability mass before it is still below top_p (the first always
    // stays).
    const at::Tensor mass_before = probabilities.cumsum(-1) - probabilities;
    const at::Tensor drop_sorted = mass_before >= top_p;
    const at::Tensor drop = at::zeros_like(drop_sorted).scatter(-1, order, drop_sorted);
    scaled = scaled.masked_fill(drop, -std::numeric_limits<float>::infinity());
  }
  return scaled;
}

std::unique_ptr<SearchStrategy> make_search(const SearchOptions& options) {
  options.validate();
  switch (options.strategy) {
    case Strategy::kGreedy:
      return std::make_unique<GreedySearch>(options.max_len);
    case Strategy::kSample:
      return std::make_unique<SamplingSearch>(options.temperature, options.top_k, options.top_p,
                                              options.seed, options.max_len);
    case Strategy::kBeam:
      return std::make_unique<BeamSearch>(options.beam_size, options.length_penalty, options.n_best,
                                          options.max_len, options.beam_stop);
  }
  return nullptr;
}

}  // namespace nmt::decode
