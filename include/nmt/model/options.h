// Hyperparameters of the encoder-decoder Transformer (the "model" section of the configuration).
// Kept apart from transformer.h so that code reading configurations does not compile LibTorch.
// Defaults are the notebook's. Torch-free; validate() throws ConfigError naming the field.
#pragma once

#include <cstdint>

namespace nmt::model {

// Where LayerNorm sits relative to each residual sub-layer.
enum class NormPosition {
  kPost,  // x = norm(x + sublayer(x)): Vaswani et al. 2017 and the notebook
  kPre,   // x = x + sublayer(norm(x)), final norm on each stack: the Annotated Transformer
};

struct TransformerOptions {
  int64_t d_model = 256;            // width of every hidden state
  int64_t layers = 6;               // encoder layers and decoder layers (each)
  int64_t heads = 8;                // attention heads; must divide d_model
  int64_t ff_mult = 4;              // feed-forward width = ff_mult * d_model
  double dropout = 0.1;             // after embeddings and every sub-layer; 0 disables
  double attention_dropout = 0.0;   // on the attention weights; 0 disables
  double activation_dropout = 0.0;  // after the feed-forward ReLU; 0 disables
  NormPosition norm = NormPosition::kPost;
  bool tie_embeddings = false;    // decoder output projection reuses the target embedding matrix
  bool share_embeddings = false;  // one embedding matrix for both languages (needs a shared vocab)
  bool scale_embeddings = false;  // multiply embeddings by sqrt(d_model) (Vaswani et al. 2017, 3.4)

  void validate() const;

  // Parameters of a Transformer with these options and vocabularies, counted from the layer
  // shapes without building it (for memory estimates before allocating).
  int64_t parameter_count(int64_t source_vocab, int64_t target_vocab) const;
};

}  // namespace nmt::model
