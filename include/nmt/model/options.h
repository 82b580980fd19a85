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

// The feed-forward sub-layer's non-linearity.
enum class Activation {
  kRelu,   // max(x, 0): Vaswani et al. 2017 and the notebook
  kGelu,   // x * Phi(x) with the exact normal CDF (transformers' "gelu")
  kSwish,  // x * sigmoid(x), also called SiLU: Marian's and OPUS-MT's
};

// How the sinusoidal position table lays out its sines and cosines over the hidden dimension.
// Both use the angles p / 10000^(2i / d_model) for i < d_model / 2, from position 0.
enum class PositionLayout {
  kInterleaved,  // column 2i the sine, 2i + 1 the cosine: the notebook's and the paper's
  kSplit,  // column i the sine, d_model / 2 + i the cosine: Marian's, fairseq's, CTranslate2's
};

struct TransformerOptions {
  int64_t d_model = 256;            // width of every hidden state
  int64_t layers = 6;               // encoder layers and decoder layers (each), unless set apart:
  int64_t encoder_layers = 0;       // 0 = `layers`
  int64_t decoder_layers = 0;       // 0 = `layers`; a shallow decoder decodes faster
  int64_t heads = 8;                // attention heads; must divide d_model
  int64_t ff_mult = 4;              // feed-forward width = ff_mult * d_model
  double dropout = 0.1;             // after embeddings and every sub-layer; 0 disables
  double attention_dropout = 0.0;   // on the attention weights; 0 disables
  double activation_dropout = 0.0;  // after the feed-forward ReLU; 0 disables
  NormPosition norm = NormPosition::kPost;
  bool tie_embeddings = false;    // decoder output projection reuses the target embedding matrix
  bool share_embeddings = false;  // one embedding matrix for both languages (needs a shared vocab)
  bool scale_embeddings = false;  // multiply embeddings by sqrt(d_model) (Vaswani et al. 2017, 3.4)
  Activation activation = Activation::kRelu;
  PositionLayout positions = PositionLayout::kInterleaved;

  int64_t encoder_depth() const { return encoder_layers > 0 ? encoder_layers : layers; }
  int64_t decoder_depth() const { return decoder_layers > 0 ? decoder_layers : layers; }

  void validate() const;

  // Parameters of a Transformer with these options and vocabularies, counted from the layer
  // shapes without building it (for memory estimates before allocating).
  int64_t parameter_count(int64_t source_vocab, int64_t target_vocab) const;
};

}  // namespace nmt::model
