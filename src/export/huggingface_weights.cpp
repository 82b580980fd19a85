#include "export/huggingface_weights.h"

#include "nmt/error.h"
#include "nmt/import/safetensors.h"

namespace nmt::exporter::detail {
namespace {

// Hidden column k of transformers' layout is nmt's column 2k (a sine) for k < D/2, else nmt's
// column 2(k - D/2) + 1 (its cosine).
at::Tensor split_sinusoid_order(int64_t d_model) {
  std::vector<int64_t> order;
  order.reserve(static_cast<std::size_t>(d_model));
  for (int64_t column = 0; column < d_model; column += 2) order.push_back(column);
  for (int64_t column = 1; column < d_model; column += 2) order.push_back(column);
  return at::tensor(order, at::kLong);
}

}  // namespace

const char* transformers_activation(model::Activation activation) {
  switch (activation) {
    case model::Activation::kRelu:
      return "relu";
    case model::Activation::kGelu:
      return "gelu";
    case model::Activation::kSwish:
      return "swish";
  }
  return "relu";
}

HuggingfaceWeights::HuggingfaceWeights(const model::TransformerImpl& model,
                                       std::vector<int64_t> id_order)
    : model_(model) {
  for (const auto& item : model.named_parameters()) parameters_.emplace(item.key(), item.value());
  if (!id_order.empty()) id_order_ = at::tensor(id_order, at::kLong);
  if (model.options().positions == model::PositionLayout::kInterleaved) {
    hidden_order_ = split_sinusoid_order(model.options().d_model);
  }
}

at::Tensor HuggingfaceWeights::parameter(const std::string& name) const {
  const auto found = parameters_.find(name);
  if (found == parameters_.end()) throw Error("cannot export: the model has no parameter " + name);
  return found->second;
}

void HuggingfaceWeights::add(const std::string& name, const at::Tensor& value) {
  names_.push_back(name);
  values_.push_back(value.detach().to(at::kFloat).contiguous());
}

at::Tensor HuggingfaceWeights::vocabulary_table(const at::Tensor& table) const {
  const at::Tensor rows = id_order_.defined() ? table.index_select(0, id_order_) : table;
  return table.dim() == 2 ? reads_hidden(rows) : rows;
}

at::Tensor HuggingfaceWeights::reads_hidden(const at::Tensor& weight) const {
  return hidden_order_.defined() ? weight.index_select(1, hidden_order_) : weight;
}

at::Tensor HuggingfaceWeights::writes_hidden(const at::Tensor& weight) const {
  return hidden_order_.defined() ? weight.index_select(0, hidden_order_) : weight;
}

void HuggingfaceWeights::add_vocabulary_tables(bool is_pegasus_tables) {
  const model::TransformerOptions& options = model_.options();
  const at::Tensor source = vocabulary_table(parameter("source_embedding.weight"));
  const at::Tensor target =
      options.share_embeddings ? source : vocabulary_table(parameter("target_embedding.weight"));
  // transformers ties tables only when tie_word_embeddings is set: Pegasus sets it for one table
  // in all three places, Marian for the output, and for the stacks when they share theirs.
  const bool is_one_table = options.share_embeddings && options.tie_embeddings;
  if (is_pegasus_tables || options.share_embeddings) add("model.shared.weight", source);
  if (!is_one_table) {
    add("model.encoder.embed_tokens.weight", source);
    add("model.decoder.embed_tokens.weight", target);
    if (is_pegasus_tables || !options.tie_embeddings) {
      add("lm_head.weight", vocabulary_table(model_.output_weight()));
    }
  }
  add("final_logits_bias", vocabulary_table(model_.output_bias()).unsqueeze(0));
}

// nmt's fused projections split back into transformers' q, k, v (the inverse of the import's).
void HuggingfaceWeights::add_attention(const std::string& from,
                                       const std::string& to,
                                       bool is_self) {
  const int64_t d = model_.options().d_model;
  const at::Tensor weight = parameter(from + ".in_proj.weight");
  const at::Tensor bias = parameter(from + ".in_proj.bias");
  add(to + ".q_proj.weight", reads_hidden(weight.narrow(0, 0, d)));
  add(to + ".q_proj.bias", bias.narrow(0, 0, d));
  const at::Tensor kv_weight =
      is_self ? weight.narrow(0, d, 2 * d) : parameter(from + ".kv_proj.weight");
  const at::Tensor kv_bias = is_self ? bias.narrow(0, d, 2 * d) : parameter(from + ".kv_proj.bias");
  add(to + ".k_proj.weight", reads_hidden(kv_weight.narrow(0, 0, d)));
  add(to + ".k_proj.bias", kv_bias.narrow(0, 0, d));
  add(to + ".v_proj.weight", reads_hidden(kv_weight.narrow(0, d, d)));
  add(to + ".v_proj.bias", kv_bias.narrow(0, d, d));
  add(to + ".out_proj.weight", writes_hidden(parameter(from + ".out_proj.weight")));
  add(to + ".out_proj.bias", writes_hidden(parameter(from + ".out_proj.bias")));
}

void HuggingfaceWeights::add_norm(const std::string& from, const std::string& to) {
  add(to + ".weight", writes_hidden(parameter(from + ".weight")));
  add(to + ".bias", writes_hidden(parameter(from + ".bias")));
}

// A layer's norms in nmt's order: norm1 at self-attention, then norm2 at cross-attention in a
// decoder layer, the last at the feed-forward; before each sub-layer (pre-norm) or after it.
void HuggingfaceWeights::add_layer(const std::string& from,
                                   const std::string& to,
                                   bool is_decoder) {
  add_attention(from + ".self_attention", to + ".self_attn", true);
  add_norm(from + ".norm1", to + ".self_attn_layer_norm");
  if (is_decoder) {
    add_attention(from + ".cross_attention", to + ".encoder_attn", false);
    add_norm(from + ".norm2", to + ".encoder_attn_layer_norm");
  }
  add(to + ".fc1.weight", reads_hidden(parameter(from + ".feed_forward.expand.weight")));
  add(to + ".fc1.bias", parameter(from + ".feed_forward.expand.bias"));
  add(to + ".fc2.weight", writes_hidden(parameter(from + ".feed_forward.contract.weight")));
  add(to + ".fc2.bias", writes_hidden(parameter(from + ".feed_forward.contract.bias")));
  add_norm(from + (is_decoder ? ".norm3" : ".norm2"), to + ".final_layer_norm");
}

void HuggingfaceWeights::add_model(bool is_pegasus_tables, int64_t max_positions) {
  add_vocabulary_tables(is_pegasus_tables);
  const model::TransformerOptions& options = model_.options();
  if (is_pegasus_tables) {
    // Pegasus keeps its sinusoids as weights, which a checkpoint without them leaves to be
    // computed again in float64: nmt's own table gives nmt's values.
    const at::Tensor positions = reads_hidden(model::sinusoidal_positions(
        0, max_positions, options.d_model, options.positions, at::kCPU));
    add("model.encoder.embed_positions.weight", positions);
    add("model.decoder.embed_positions.weight", positions);
  }
  for (int64_t i = 0; i < options.encoder_depth(); ++i) {
    add_layer("encoder." + std::to_string(i), "model.encoder.layers." + std::to_string(i), false);
  }
  for (int64_t i = 0; i < options.decoder_depth(); ++i) {
    add_layer("decoder." + std::to_string(i), "model.decoder.layers." + std::to_string(i), true);
  }
  if (options.norm == model::NormPosition::kPre) {
    add_norm("encoder_norm", "model.encoder.layer_norm");
    add_norm("decoder_norm", "model.decoder.layer_norm");
  }
}

void HuggingfaceWeights::write(const std::string& path) const {
  std::vector<import::TensorToWrite> tensors;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const at::Tensor& value = values_[i];
    tensors.push_back({names_[i],
                       import::Dtype::kF32,
                       value.sizes().vec(),
                       {static_cast<const char*>(value.data_ptr()),
                        static_cast<std::size_t>(value.numel()) * sizeof(float)}});
  }
  import::write_safetensors(path, tensors, {{ "format", "pt" }});
}

}  // namespace nmt::exporter::detail
