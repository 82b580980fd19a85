// Multi-head scaled dot-product attention (Vaswani et al. 2017, 3.2), as in the notebook, with the
// projections fused for speed: self-attention computes Q, K and V with one [3D, D] matrix,
// cross-attention Q with one [D, D] and K, V with one [2D, D] matrix.
//
// Shapes: queries [B, T, D], memory [B, S, D], masks bool broadcastable to [B, 1, T, S] with
// true = may attend (padding_mask, causal_mask). Heads are split as [B, H, L, D/H]. Weights are
// returned ([B, H, T, S], rows summing to 1) only on request, through the explicit path; otherwise
// LibTorch >= 2 uses its fused kernel and 1.13 the explicit one, with the same numbers.
// Shape errors throw c10::Error (TORCH_CHECK); never logs.
#pragma once

#include <torch/nn/module.h>

#include "nmt/model/linear.h"

namespace nmt::model {

// true where a token is not <PAD>: ids [B, S] -> [B, 1, 1, S].
torch::Tensor padding_mask(const torch::Tensor& ids);
// true on and below the diagonal: [T, T], so position t sees positions <= t.
torch::Tensor causal_mask(int64_t length, const torch::Device& device);

// Keys and values of one attention layer, [B, H, L, D/H] each, kept between decoding steps.
struct KeyValue {
  torch::Tensor keys;
  torch::Tensor values;
};

struct AttentionOutput {
  torch::Tensor output;   // [B, T, D]
  torch::Tensor weights;  // [B, H, T, S] when requested, else undefined
};

// softmax(q k^T / sqrt(d_head), masked) v for split heads, with dropout (> 0) on the weights
// that mix the values (the returned weights are before it). Explicit when need_weights or
// dropout > 0, when LibTorch has no fused kernel, or when gradients are recorded on the CPU (the
// fused kernel's CPU backward is many times slower than the explicit operators').
AttentionOutput scaled_dot_product(const torch::Tensor& queries,
                                   const torch::Tensor& keys,
                                   const torch::Tensor& values,
                                   const torch::Tensor& mask,
                                   bool need_weights,
                                   double dropout = 0.0);

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  // is_self: Q, K, V all from the queries (fused [3D, D] projection); otherwise K, V from memory.
  // attention_dropout: on the attention weights while training (Vaswani et al. 2017 do not;
  // fairseq's
  // --attention-dropout does).
  MultiHeadAttentionImpl(int64_t d_model,
                         int64_t heads,
                         bool is_self,
                         double attention_dropout = 0.0);

  // Self-attention over x [B, T, D].
  AttentionOutput self_attend(const torch::Tensor& x,
                              const torch::Tensor& mask,
                              bool need_weights = false);
  // Cross-attention of x [B, T, D] over memory [B, S, D].
  AttentionOutput cross_attend(const torch::Tensor& x,
                               const torch::Tensor& memory,
                               const torch::Tensor& mask,
                               bool need_weights = false);

  // Keys and values of memory [B, S, D], computed once per sentence for cross-attention.
  KeyValue project_memory(const torch::Tensor& memory);
  // One decoding step of self-attention: x [B, 1, D]; appends this position's keys/values to cache.
  AttentionOutput self_attend_step(const torch::Tensor& x,
                                   KeyValue& cache,
                                   bool need_weights = false);
  // One decoding step of cross-attention against precomputed memory keys/values.
  AttentionOutput cross_attend_step(const torch::Tensor& x,
                                    const KeyValue& memory,
                                    const torch::Tensor& mask,
                                    bool need_weights = false);

 private:
  torch::Tensor split_heads(const torch::Tensor& x) const;  // [B, L, D] -> [B, H, L, D/H]
  AttentionOutput finish(const AttentionOutput& heads);     // merge heads, output projection

  double training_dropout() const;  // attention_dropout_ while training, else 0

  int64_t d_model_;
  int64_t heads_;
  double attention_dropout_;
  Linear in_proj_{nullptr};   // self: [3D, D]; cross: queries [D, D]
  Linear kv_proj_{nullptr};   // cross only: keys and values [2D, D]
  Linear out_proj_{nullptr};  // [D, D]
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace nmt::model
