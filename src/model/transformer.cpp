#include "nmt/model/transformer.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/init.h>

#include <algorithm>
#include <cmath>

#include "nmt/model/dropout.h"
#include "nmt/model/initialisation.h"
#include "nmt/text/vocab.h"

namespace nmt::model {
namespace {

torch::nn::LayerNorm layer_norm(int64_t d_model) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model}));
}

torch::nn::Embedding embedding(int64_t vocab, const TransformerOptions& options) {
  auto table_options =
      torch::nn::EmbeddingOptions(vocab, options.d_model).padding_idx(text::kPadId);
  // A weight given to torch::nn::Embedding is taken as it is, not drawn.
  if (ParametersToBeLoaded::active()) table_options._weight(torch::empty({vocab, options.d_model}));
  torch::nn::Embedding table(table_options);
  if (options.tie_embeddings && !ParametersToBeLoaded::active()) {
    // A matrix shared with the output layer starts at N(0, 1/D) so that initial logits are O(1)
    // (Press & Wolf 2017); scale_embeddings then restores unit variance at the input.
    torch::NoGradGuard no_grad;
    table->weight.normal_(0.0, 1.0 / std::sqrt(static_cast<double>(options.d_model)));
    table->weight[text::kPadId].zero_();
  }
  return table;
}

}  // namespace

torch::Tensor sinusoidal_positions(int64_t first,
                                   int64_t count,
                                   int64_t d_model,
                                   PositionLayout layout,
                                   const torch::Device& device) {
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat).device(device);
  const torch::Tensor positions = torch::arange(first, first + count, float_options).unsqueeze(1);
  // The notebook's div = 10000^(2i / D); even columns sin(pos / div), odd columns cos(pos / div).
  const torch::Tensor div =
      torch::pow(10000.0, torch::arange(0, d_model, 2, float_options) / d_model);
  const torch::Tensor angles = positions / div;
  if (layout == PositionLayout::kSplit) return torch::cat({angles.sin(), angles.cos()}, 1);
  return torch::stack({angles.sin(), angles.cos()}, -1).view({count, d_model});
}

torch::Tensor activate(Activation activation, const torch::Tensor& x) {
  switch (activation) {
    case Activation::kGelu:
      return at::gelu(x);
    case Activation::kSwish:
      return at::silu(x);
    case Activation::kRelu:
      break;
  }
  return at::relu(x);
}

FeedForwardImpl::FeedForwardImpl(const TransformerOptions& options)
    : expand_(
          register_module("expand", Linear(options.d_model, options.ff_mult * options.d_model))),
      contract_(
          register_module("contract", Linear(options.ff_mult * options.d_model, options.d_model))),
      activation_(options.activation),
      activation_dropout_(options.activation_dropout) {}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  const torch::Tensor hidden = activate(activation_, expand_(x));
  return contract_(inverted_dropout(hidden, activation_dropout_, is_training()));
}

EncoderLayerImpl::EncoderLayerImpl(const TransformerOptions& options)
    : is_pre_norm_(options.norm == NormPosition::kPre),
      self_attention_(register_module(
          "self_attention",
          MultiHeadAttention(
              options.d_model, options.heads, /*is_self=*/true, options.attention_dropout))),
      feed_forward_(register_module("feed_forward", FeedForward(options))),
      norm1_(register_module("norm1", layer_norm(options.d_model))),
      norm2_(register_module("norm2", layer_norm(options.d_model))),
      dropout_(options.dropout) {}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x,
                                        const torch::Tensor& mask,
                                        AttentionMaps* maps) {
  const bool need_weights = maps != nullptr;
  torch::Tensor h = x;
  if (is_pre_norm_) {
    auto attention = self_attention_->self_attend(norm1_(h), mask, need_weights);
    if (maps) maps->encoder_self.push_back(attention.weights);
    h = h + inverted_dropout(attention.output, dropout_, is_training());
    return h + inverted_dropout(feed_forward_(norm2_(h)), dropout_, is_training());
  }
  auto attention = self_attention_->self_attend(h, mask, need_weights);
  if (maps) maps->encoder_self.push_back(attention.weights);
  h = norm1_(inverted_dropout(attention.output, dropout_, is_training()) + h);
  return norm2_(inverted_dropout(feed_forward_(h), dropout_, is_training()) + h);
}

DecoderLayerImpl::DecoderLayerImpl(const TransformerOptions& options)
    : is_pre_norm_(options.norm == NormPosition::kPre),
      self_attention_(register_module(
          "self_attention",
          MultiHeadAttention(
              options.d_model, options.heads, /*is_self=*/true, options.attention_dropout))),
      cross_attention_(register_module(
          "cross_attention",
          MultiHeadAttention(
              options.d_model, options.heads, /*is_self=*/false, options.attention_dropout))),
      feed_forward_(register_module("feed_forward", FeedForward(options))),
      norm1_(register_module("norm1", layer_norm(options.d_model))),
      norm2_(register_module("norm2", layer_norm(options.d_model))),
      norm3_(register_module("norm3", layer_norm(options.d_model))),
      dropout_(options.dropout) {}

template <class Sublayer>
torch::Tensor DecoderLayerImpl::residual(const torch::Tensor& x,
                                         torch::nn::LayerNorm& norm,
                                         Sublayer&& sublayer) {
  if (is_pre_norm_) return x + inverted_dropout(sublayer(norm(x)), dropout_, is_training());
  return norm(inverted_dropout(sublayer(x), dropout_, is_training()) + x);
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x,
                                        const torch::Tensor& memory,
                                        const torch::Tensor& self_mask,
                                        const torch::Tensor& memory_mask,
                                        AttentionMaps* maps) {
  const bool need_weights = maps != nullptr;
  torch::Tensor h = residual(x, norm1_, [&](const torch::Tensor& in) {
    auto attention = self_attention_->self_attend(in, self_mask, need_weights);
    if (maps) maps->decoder_self.push_back(attention.weights);
    return attention.output;
  });
  h = residual(h, norm2_, [&](const torch::Tensor& in) {
    auto attention = cross_attention_->cross_attend(in, memory, memory_mask, need_weights);
    if (maps) maps->cross.push_back(attention.weights);
    return attention.output;
  });
  return residual(h, norm3_, [&](const torch::Tensor& in) { return feed_forward_(in); });
}

torch::Tensor DecoderLayerImpl::step(const torch::Tensor& x,
                                     LayerCache& cache,
                                     const torch::Tensor& memory_mask,
                                     AttentionMaps* maps) {
  const bool need_weights = maps != nullptr;
  torch::Tensor h = residual(x, norm1_, [&](const torch::Tensor& in) {
    auto attention = self_attention_->self_attend_step(in, cache.self, need_weights);
    if (maps) maps->decoder_self.push_back(attention.weights);
    return attention.output;
  });
  h = residual(h, norm2_, [&](const torch::Tensor& in) {
    auto attention =
        cross_attention_->cross_attend_step(in, cache.memory, memory_mask, need_weights);
    if (maps) maps->cross.push_back(attention.weights);
    return attention.output;
  });
  return residual(h, norm3_, [&](const torch::Tensor& in) { return feed_forward_(in); });
}

KeyValue DecoderLayerImpl::project_memory(const torch::Tensor& memory) {
  return cross_attention_->project_memory(memory);
}

TransformerImpl::TransformerImpl(const TransformerOptions& options,
                                 int64_t source_vocab,
                                 int64_t target_vocab)
    : options_(options), source_vocab_(source_vocab), target_vocab_(target_vocab) {
  options_.validate();
  TORCH_CHECK(!options.share_embeddings || source_vocab == target_vocab,
              "shared embeddings need one vocabulary, got ", source_vocab, " and ", target_vocab);
  source_embedding_ = register_module("source_embedding", embedding(source_vocab, options));
  target_embedding_ = options.share_embeddings
                          ? source_embedding_
                          : register_module("target_embedding", embedding(target_vocab, options));
  // Layer i of the encoder, then of the decoder, as before depths could differ: a seed gives the
  // weights it gave then.
  for (int64_t i = 0; i < std::max(options.encoder_depth(), options.decoder_depth()); ++i) {
    if (i < options.encoder_depth()) encoder_->push_back(EncoderLayer(options));
    if (i < options.decoder_depth()) decoder_->push_back(DecoderLayer(options));
  }
  register_module("encoder", encoder_);
  register_module("decoder", decoder_);
  if (options.norm == NormPosition::kPre) {
    encoder_norm_ = register_module("encoder_norm", layer_norm(options.d_model));
    decoder_norm_ = register_module("decoder_norm", layer_norm(options.d_model));
  }
  if (options.tie_embeddings) {
    output_bias_ = register_parameter("output_bias", torch::zeros({target_vocab}));
  } else {
    output_ = register_module("output", Linear(options.d_model, target_vocab));
  }
}

torch::Tensor TransformerImpl::embed(torch::nn::Embedding& table,
                                     const torch::Tensor& ids,
                                     int64_t first_position) {
  const int64_t length = ids.size(1);
  reserve_positions(first_position + length, ids.device());
  torch::Tensor x = table(ids);
  if (options_.scale_embeddings) x = x * std::sqrt(static_cast<double>(options_.d_model));
  return inverted_dropout(x + positions_.narrow(0, first_position, length), options_.dropout,
                          is_training());
}

void TransformerImpl::reserve_positions(int64_t count, const torch::Device& device) {
  // A table made under InferenceMode cannot take part in autograd later: remake it then.
  const bool is_unusable =
      positions_.defined() && positions_.is_inference() && !c10::InferenceMode::is_enabled();
  if (!positions_.defined() || is_unusable || positions_.device() != device ||
      positions_.size(0) < count) {
    const int64_t capacity = std::max<int64_t>(256, 2 * count);
    positions_ = sinusoidal_positions(0, capacity, options_.d_model, options_.positions, device);
  }
}

torch::Tensor TransformerImpl::encode(const torch::Tensor& source, AttentionMaps* maps) {
  TORCH_CHECK(source.dim() == 2, "source ids must be [B, S], got ", source.sizes());
  const torch::Tensor mask = padding_mask(source);
  torch::Tensor x = embed(source_embedding_, source, 0);
  for (const auto& layer : *encoder_) x = layer->as<EncoderLayer>()->forward(x, mask, maps);
  return encoder_norm_ ? encoder_norm_(x) : x;
}

torch::Tensor TransformerImpl::decode(const torch::Tensor& target,
                                      const torch::Tensor& memory,
                                      const torch::Tensor& source_mask,
                                      AttentionMaps* maps) {
  TORCH_CHECK(target.dim() == 2, "target ids must be [B, T], got ", target.sizes());
  const torch::Tensor self_mask =
      padding_mask(target) & causal_mask(target.size(1), target.device());
  torch::Tensor x = embed(target_embedding_, target, 0);
  for (const auto& layer : *decoder_)
    x = layer->as<DecoderLayer>()->forward(x, memory, self_mask, source_mask, maps);
  return decoder_norm_ ? decoder_norm_(x) : x;
}

torch::Tensor TransformerImpl::project(const torch::Tensor& hidden) {
  if (!options_.tie_embeddings) return output_(hidden);
  if (tied_output_.form() != WeightForm::kFp32 && !is_training()) return tied_output_.apply(hidden);
  return torch::linear(hidden, target_embedding_->weight, output_bias_);
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& source, const torch::Tensor& target) {
  const torch::Tensor memory = encode(source);
  return project(decode(target, memory, padding_mask(source)));
}

const torch::Tensor& TransformerImpl::output_weight() const {
  return options_.tie_embeddings ? target_embedding_->weight : output_->weight;
}

const torch::Tensor& TransformerImpl::output_bias() const {
  return options_.tie_embeddings ? output_bias_ : output_->bias;
}

const InferenceWeight& TransformerImpl::output_inference() const {
  return options_.tie_embeddings ? tied_output_ : output_->inference();
}

void TransformerImpl::set_inference_form(WeightForm form) {
  for (const auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<LinearImpl>()) linear->set_inference_form(form);
  }
  if (options_.tie_embeddings) tied_output_.prepare(form, target_embedding_->weight, output_bias_);
}

DecoderState TransformerImpl::start(const torch::Tensor& memory, const torch::Tensor& source_mask) {
  DecoderState state;
  state.memory_mask = source_mask;
  for (const auto& layer : *decoder_) {
    state.layers.push_back({KeyValue{}, layer->as<DecoderLayer>()->project_memory(memory)});
  }
  return state;
}

torch::Tensor TransformerImpl::step(const torch::Tensor& last_ids,
                                    DecoderState& state,
                                    AttentionMaps* maps) {
  torch::Tensor x = embed(target_embedding_, last_ids.view({-1, 1}), state.position);
  for (std::size_t i = 0; i < decoder_->size(); ++i) {
    x = decoder_[i]->as<DecoderLayer>()->step(x, state.layers[i], state.memory_mask, maps);
  }
  ++state.position;
  if (decoder_norm_) x = decoder_norm_(x);
  return project(x.squeeze(1));
}

void TransformerImpl::keep_rows(DecoderState& state, const torch::Tensor& rows) {
  state.memory_mask = state.memory_mask.index_select(0, rows);
  for (LayerCache& layer : state.layers) {
    for (KeyValue* kv : {&layer.self, &layer.memory}) {
      if (!kv->keys.defined()) continue;
      kv->keys = kv->keys.index_select(0, rows);
      kv->values = kv->values.index_select(0, rows);
    }
  }
}

}  // namespace nmt::model
