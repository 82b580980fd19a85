// Helpers for tests of the Torch modules: tiny models and data, and tolerance checks.
#pragma once

#include <torch/types.h>
#include <torch/utils.h>

#include <vector>

#include "nmt/model/transformer.h"
#include "nmt/text/vocab.h"

namespace nmt::testing {

// d_model 16, 2 layers, 4 heads: small enough for exact checks, big enough to have every part.
inline model::TransformerOptions tiny_options(
    model::NormPosition norm = model::NormPosition::kPost) {
  model::TransformerOptions options;
  options.d_model = 16;
  options.layers = 2;
  options.heads = 4;
  options.ff_mult = 2;
  options.dropout = 0.0;
  options.norm = norm;
  return options;
}

inline model::Transformer tiny_model(model::NormPosition norm = model::NormPosition::kPost,
                                     int64_t vocab = 12,
                                     uint64_t seed = 7) {
  torch::manual_seed(seed);
  model::Transformer model(tiny_options(norm), vocab, vocab);
  model->eval();
  return model;
}

// Whether a and b hold the same parameters, bit for bit.
inline bool same_parameters(model::Transformer& a, model::Transformer& b) {
  const auto pa = a->named_parameters();
  const auto pb = b->named_parameters();
  for (const auto& item : pa) {
    const torch::Tensor* other = pb.find(item.key());
    if (other == nullptr || !torch::equal(item.value(), *other)) return false;
  }
  return pa.size() == pb.size();
}

inline bool all_close(const torch::Tensor& a, const torch::Tensor& b, double tolerance = 1e-5) {
  return a.sizes() == b.sizes() && torch::allclose(a, b, tolerance, tolerance);
}

// Log-probabilities of each target token, then of <EOS>, after source: one teacher-forced forward
// pass of the training graph (model.forward), in the model's dtype.
inline std::vector<float> teacher_forced_log_probs(model::TransformerImpl& model,
                                                   const std::vector<int64_t>& source,
                                                   const std::vector<int64_t>& target) {
  std::vector<int64_t> input{text::kSosId};
  input.insert(input.end(), target.begin(), target.end());
  std::vector<int64_t> expected = target;
  expected.push_back(text::kEosId);
  const torch::Tensor source_ids = torch::tensor(source, torch::kLong).unsqueeze(0);
  const torch::Tensor input_ids = torch::tensor(input, torch::kLong).unsqueeze(0);
  const torch::Tensor log_probs =
      model.forward(source_ids, input_ids).squeeze(0).to(torch::kFloat).log_softmax(-1);
  const torch::Tensor chosen =
      log_probs.gather(1, torch::tensor(expected, torch::kLong).unsqueeze(1))
          .squeeze(1)
          .contiguous();
  return {chosen.data_ptr<float>(), chosen.data_ptr<float>() + chosen.numel()};
}

}  // namespace nmt::testing
