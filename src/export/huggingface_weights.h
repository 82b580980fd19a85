// nmt's parameters under transformers' names for MarianMTModel and PegasusForConditionalGeneration
// (one layout: Pegasus is Marian's with pre-norm layers and a final norm on each stack), in the
// order of the exported ids and of the exported hidden dimension. Private to src/export/.
//
// Two reorderings make nmt's model transformers' without changing a single output:
//  - ids: the rows of every vocabulary table follow the exported vocabulary's ids;
//  - hidden dimension: nmt's interleaved sinusoids (sin, cos, sin, cos, ...) are transformers'
//    split ones (every sin, then every cos) once the hidden dimension is permuted, and attention,
//    layer norm and the feed-forward layers do not see a permutation applied to every weight that
//    reads or writes the residual stream.
#pragma once

#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

#include "nmt/model/transformer.h"

namespace nmt::exporter::detail {

// transformers' name of an activation (config.json's activation_function).
const char* transformers_activation(model::Activation activation);

class HuggingfaceWeights {
 public:
  // id_order[i]: nmt's id of exported id i (empty: the same ids). Permutes the hidden dimension
  // when the model's positions are interleaved.
  HuggingfaceWeights(const model::TransformerImpl& model, std::vector<int64_t> id_order);

  // Every parameter: the vocabulary tables, each layer, the stacks' final norms (pre-norm).
  // is_pegasus_tables: Pegasus always has model.shared; without tying, its encoder, decoder and
  // output tables are written apart (transformers ties nothing then); and it keeps its
  // max_positions sinusoids as weights.
  void add_model(bool is_pegasus_tables, int64_t max_positions);

  // model.safetensors, metadata {"format": "pt"}.
  void write(const std::string& path) const;
  std::size_t size() const { return names_.size(); }

 private:
  at::Tensor parameter(const std::string& name) const;
  void add(const std::string& name, const at::Tensor& value);
  // A table whose rows are ids and whose columns are the hidden dimension.
  at::Tensor vocabulary_table(const at::Tensor& table) const;
  // The hidden dimension of a weight's inputs (dim 1) or of its outputs (dim 0, biases, norms).
  at::Tensor reads_hidden(const at::Tensor& weight) const;
  at::Tensor writes_hidden(const at::Tensor& weight) const;

  void add_vocabulary_tables(bool is_pegasus_tables);
  void add_attention(const std::string& from, const std::string& to, bool is_self);
  void add_norm(const std::string& from, const std::string& to);
  void add_layer(const std::string& from, const std::string& to, bool is_decoder);

  const model::TransformerImpl& model_;
  std::map<std::string, at::Tensor> parameters_;  // the model's, by name
  at::Tensor id_order_;      // undefined: nmt's ids
  at::Tensor hidden_order_;  // undefined: nmt's hidden order
  std::vector<std::string> names_;
  std::vector<at::Tensor> values_;
};

}  // namespace nmt::exporter::detail
