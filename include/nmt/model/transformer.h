// The encoder-decoder Transformer of the notebook (Vaswani et al. 2017): token embeddings with
// <PAD> = 0 as padding index, sinusoidal positions, dropout after their sum, N encoder layers
// (self-attention, ReLU feed-forward) and N decoder layers (causal self-attention, cross-attention,
// feed-forward), each sub-layer wrapped in a residual connection and LayerNorm, post-norm as in the
// notebook or pre-norm as in the Annotated Transformer; a final linear layer to the target
// vocabulary.
//
// Shapes: source ids [B, S] and target ids [B, T], int64, padded with <PAD>; hidden states
// [B, L, D]; logits [B, T, V]. Positions beyond any fixed table are computed on demand, so long
// inputs never crash. The loss lives in train/loss.h, not here. Parameter names (the checkpoint
// keys) are stable. Shape errors throw c10::Error; never logs.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include <vector>

#include "nmt/model/attention.h"
#include "nmt/model/linear.h"
#include "nmt/model/options.h"

namespace nmt::model {

// Sinusoidal position encodings of positions [first, first + count), [count, d_model], float, in
// the given layout.
torch::Tensor sinusoidal_positions(int64_t first,
                                   int64_t count,
                                   int64_t d_model,
                                   PositionLayout layout,
                                   const torch::Device& device);

// Position-wise feed-forward: Linear(D, ff) -> ReLU -> [dropout while training] -> Linear(ff, D).
// The activation function on a tensor (the CPU decoder has its own loops: model/cpu_kernels.h).
torch::Tensor activate(Activation activation, const torch::Tensor& x);

// contract(dropout(activation(expand(x)))), hidden width ff_mult * d_model.
class FeedForwardImpl : public torch::nn::Module {
 public:
  explicit FeedForwardImpl(const TransformerOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  Linear expand_{nullptr};
  Linear contract_{nullptr};
  Activation activation_;
  double activation_dropout_;
};
TORCH_MODULE(FeedForward);

// Per-layer attention weights, filled when a forward pass is asked for them.
struct AttentionMaps {
  std::vector<torch::Tensor> encoder_self;  // per layer [B, H, S, S]
  std::vector<torch::Tensor> decoder_self;  // per layer [B, H, T, T]
  std::vector<torch::Tensor> cross;         // per layer [B, H, T, S]
};

class EncoderLayerImpl : public torch::nn::Module {
 public:
  explicit EncoderLayerImpl(const TransformerOptions& options);
  // x [B, S, D], mask [B, 1, 1, S]; appends the self-attention weights to maps when given.
  torch::Tensor forward(const torch::Tensor& x,
                        const torch::Tensor& mask,
                        AttentionMaps* maps = nullptr);

 private:
  bool is_pre_norm_;
  MultiHeadAttention self_attention_{nullptr};
  FeedForward feed_forward_{nullptr};
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr};
  double dropout_;  // on each sub-layer's output while training
};
TORCH_MODULE(EncoderLayer);

// Caches of one decoder layer during incremental decoding.
struct LayerCache {
  KeyValue self;    // grows by one position per step
  KeyValue memory;  // cross-attention keys/values of the encoder output, fixed
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  explicit DecoderLayerImpl(const TransformerOptions& options);
  // x [B, T, D], memory [B, S, D], self_mask [B, 1, T, T], memory_mask [B, 1, 1, S].
  torch::Tensor forward(const torch::Tensor& x,
                        const torch::Tensor& memory,
                        const torch::Tensor& self_mask,
                        const torch::Tensor& memory_mask,
                        AttentionMaps* maps = nullptr);
  // One position x [B, 1, D] against the cache; returns [B, 1, D].
  torch::Tensor step(const torch::Tensor& x,
                     LayerCache& cache,
                     const torch::Tensor& memory_mask,
                     AttentionMaps* maps = nullptr);
  KeyValue project_memory(const torch::Tensor& memory);

 private:
  template <class Sublayer>
  torch::Tensor residual(const torch::Tensor& x, torch::nn::LayerNorm& norm, Sublayer&& sublayer);

  bool is_pre_norm_;
  MultiHeadAttention self_attention_{nullptr};
  MultiHeadAttention cross_attention_{nullptr};
  FeedForward feed_forward_{nullptr};
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr}, norm3_{nullptr};
  double dropout_;  // on each sub-layer's output while training
};
TORCH_MODULE(DecoderLayer);

// Everything incremental decoding carries from one step to the next, for R rows.
struct DecoderState {
  std::vector<LayerCache> layers;
  torch::Tensor memory_mask;  // [R, 1, 1, S]
  int64_t position = 0;       // index of the next target position
};

class TransformerImpl : public torch::nn::Module {
 public:
  TransformerImpl(const TransformerOptions& options, int64_t source_vocab, int64_t target_vocab);

  // Encoder output [B, S, D] of source ids [B, S].
  torch::Tensor encode(const torch::Tensor& source, AttentionMaps* maps = nullptr);
  // Decoder output [B, T, D] (before the vocabulary projection) for target ids [B, T].
  torch::Tensor decode(const torch::Tensor& target,
                       const torch::Tensor& memory,
                       const torch::Tensor& source_mask,
                       AttentionMaps* maps = nullptr);
  // Vocabulary logits [..., V] of decoder states [..., D].
  torch::Tensor project(const torch::Tensor& hidden);
  // logits [B, T, V] = project(decode(target, encode(source))).
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target);

  // Incremental decoding: start from the encoder output, then one position per step.
  DecoderState start(const torch::Tensor& memory, const torch::Tensor& source_mask);
  // Logits [R, V] of the next token after last_ids [R] (the previous step's tokens, <SOS> first).
  torch::Tensor step(const torch::Tensor& last_ids,
                     DecoderState& state,
                     AttentionMaps* maps = nullptr);
  // Keeps (and reorders) the state's rows: rows int64 [R'] indexes the current rows.
  static void keep_rows(DecoderState& state, const torch::Tensor& rows);

  // The number format of every matrix product outside training (linear.h); kFp32 by default.
  // Copies the current weights into that form: call it again after they change.
  void set_inference_form(WeightForm form);

  // Makes the position table hold `count` positions on device. Forward passes grow it on demand;
  // several threads decoding with one model must reserve first, so that none of them writes it.
  void reserve_positions(int64_t count, const torch::Device& device);

  // The output projection [V, D] and its bias [V] (the target embedding and output_bias when the
  // embeddings are tied), and its inference form.
  const torch::Tensor& output_weight() const;
  const torch::Tensor& output_bias() const;
  const InferenceWeight& output_inference() const;

  const TransformerOptions& options() const { return options_; }
  int64_t source_vocab() const { return source_vocab_; }
  int64_t target_vocab() const { return target_vocab_; }

 private:
  torch::Tensor embed(torch::nn::Embedding& table,
                      const torch::Tensor& ids,
                      int64_t first_position);

  TransformerOptions options_;
  int64_t source_vocab_;
  int64_t target_vocab_;
  torch::nn::Embedding source_embedding_{nullptr};
  torch::nn::Embedding target_embedding_{nullptr};  // the source table when embeddings are shared
  torch::nn::ModuleList encoder_;
  torch::nn::ModuleList decoder_;
  torch::nn::LayerNorm encoder_norm_{nullptr};  // pre-norm only
  torch::nn::LayerNorm decoder_norm_{nullptr};  // pre-norm only
  Linear output_{nullptr};                      // untied output projection
  torch::Tensor output_bias_;                   // tied: the projection is the target embedding's
  InferenceWeight tied_output_;                 // tied: its inference form
  torch::Tensor positions_;  // cached sinusoid table, grown on demand (not saved)
};
TORCH_MODULE(Transformer);

}  // namespace nmt::model
