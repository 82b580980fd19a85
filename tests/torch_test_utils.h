// Helpers for tests of the Torch modules: tiny models and data, and tolerance checks.
#pragma once

#include <torch/types.h>
#include <torch/utils.h>

#include "nmt/model/transformer.h"

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

inline bool all_close(const torch::Tensor& a, const torch::Tensor& b, double tolerance = 1e-5) {
  return a.sizes() == b.sizes() && torch::allclose(a, b, tolerance, tolerance);
}

}  // namespace nmt::testing
