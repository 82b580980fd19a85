#include "nmt/model/attention.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "model/batched_products.h"
#include "nmt/model/dropout.h"
#include "nmt/text/vocab.h"
#include "torch_compat.h"

namespace nmt::model {

torch::Tensor padding_mask(const torch::Tensor& ids) {
  return ids.ne(text::kPadId).unsqueeze(1).unsqueeze(2);
}

torch::Tensor causal_mask(int64_t length, const torch::Device& device) {
  return torch::ones({length, length}, torch::TensorOptions().dtype(torch::kBool).device(device))
      .tril();
}

namespace {

// LibTorch 2.x's fused kernel is faster forward, but on the CPU its backward (flash attention) took
// 394 ms per bf16 training update where the explicit operators' backward takes about 23 (record
// data/benchmarks/torch2-bf16-ops-2026-11-24/): CPU training keeps the explicit path.
bool takes_fused_kernel(const torch::Tensor& queries, bool need_weights, double dropout) {
  if (need_weights || dropout > 0.0 || !compat::has_fused_attention()) return false;
  return !(queries.is_cpu() && at::GradMode::is_enabled());
}

}  // namespace

AttentionOutput scaled_dot_product(const torch::Tensor& queries,
                                   const torch::Tensor& keys,
                                   const torch::Tensor& values,
                                   const torch::Tensor& mask,
                                   bool need_weights,
                                   double dropout) {
  if (takes_fused_kernel(queries, need_weights, dropout)) {
    return {compat::fused_attention(queries, keys, values, mask), {}};
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(queries.size(-1)));
  torch::Tensor scores = batched_product(queries, keys.transpose(-2, -1)).mul_(scale);
  if (mask.defined())
    scores.masked_fill_(mask.logical_not(), -std::numeric_limits<float>::infinity());
  // Under bf16 autocast the scores are bf16; the softmax runs in fp32, where its exponentials and
  // sums keep their precision.
  torch::Tensor weights = torch::softmax(scores, -1, torch::kFloat);
  const torch::Tensor mixing = inverted_dropout(weights, dropout, /*train=*/true);
  torch::Tensor output = batched_product(mixing.to(values.scalar_type()), values);
  return {output, need_weights ? weights : torch::Tensor()};
}

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t d_model,
                                               int64_t heads,
                                               bool is_self,
                                               double attention_dropout)
    : d_model_(d_model), heads_(heads), attention_dropout_(attention_dropout) {
  TORCH_CHECK(d_model % heads == 0, "d_model ", d_model, " is not divisible by heads ", heads);
  in_proj_ = register_module("in_proj", Linear(d_model, is_self ? 3 * d_model : d_model));
  if (!is_self) kv_proj_ = register_module("kv_proj", Linear(d_model, 2 * d_model));
  out_proj_ = register_module("out_proj", Linear(d_model, d_model));
}

torch::Tensor MultiHeadAttentionImpl::split_heads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), heads_, d_model_ / heads_}).transpose(1, 2);
}

AttentionOutput MultiHeadAttentionImpl::finish(const AttentionOutput& heads) {
  const torch::Tensor& o = heads.output;  // [B, H, T, Dh]
  torch::Tensor merged = o.transpose(1, 2).reshape({o.size(0), o.size(2), d_model_});
  return {out_proj_(merged), heads.weights};
}

AttentionOutput MultiHeadAttentionImpl::self_attend(const torch::Tensor& x,
                                                    const torch::Tensor& mask,
                                                    bool need_weights) {
  TORCH_CHECK(!kv_proj_, "self_attend called on a cross-attention layer");
  const auto qkv = in_proj_(x).chunk(3, -1);
  return finish(scaled_dot_product(split_heads(qkv[0]), split_heads(qkv[1]), split_heads(qkv[2]),
                                   mask, need_weights, training_dropout()));
}

AttentionOutput MultiHeadAttentionImpl::cross_attend(const torch::Tensor& x,
                                                     const torch::Tensor& memory,
                                                     const torch::Tensor& mask,
                                                     bool need_weights) {
  const KeyValue kv = project_memory(memory);
  return finish(scaled_dot_product(split_heads(in_proj_(x)), kv.keys, kv.values, mask, need_weights,
                                   training_dropout()));
}

double MultiHeadAttentionImpl::training_dropout() const {
  return is_training() ? attention_dropout_ : 0.0;
}

KeyValue MultiHeadAttentionImpl::project_memory(const torch::Tensor& memory) {
  TORCH_CHECK(kv_proj_, "project_memory called on a self-attention layer");
  const auto kv = kv_proj_(memory).chunk(2, -1);
  return {split_heads(kv[0]), split_heads(kv[1])};
}

AttentionOutput MultiHeadAttentionImpl::self_attend_step(const torch::Tensor& x,
                                                         KeyValue& cache,
                                                         bool need_weights) {
  TORCH_CHECK(x.size(1) == 1, "self_attend_step takes one position, got ", x.sizes());
  const auto qkv = in_proj_(x).chunk(3, -1);
  const torch::Tensor keys = split_heads(qkv[1]);
  const torch::Tensor values = split_heads(qkv[2]);
  cache.keys = cache.keys.defined() ? torch::cat({cache.keys, keys}, 2) : keys.contiguous();
  cache.values =
      cache.values.defined() ? torch::cat({cache.values, values}, 2) : values.contiguous();
  // Every cached position precedes this one: no mask is needed.
  return finish(scaled_dot_product(split_heads(qkv[0]), cache.keys, cache.values, torch::Tensor(),
                                   need_weights));
}

AttentionOutput MultiHeadAttentionImpl::cross_attend_step(const torch::Tensor& x,
                                                          const KeyValue& memory,
                                                          const torch::Tensor& mask,
                                                          bool need_weights) {
  const torch::Tensor queries = split_heads(in_proj_(x));
  return finish(scaled_dot_product(queries, memory.keys, memory.values, mask, need_weights));
}

}  // namespace nmt::model
