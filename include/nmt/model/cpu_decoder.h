// The decoder of a Transformer run one position at a time on the CPU, on plain arrays: the same
// computation as TransformerImpl::step, without LibTorch's cost per operation. A decoding step of
// four layers is some 200 LibTorch operations, each a few microseconds of dispatch and allocation
// around a few microseconds of arithmetic; here a step is about 25 matrix products and loops over
// rows (layer norms, attention over the caches, residuals), with every buffer allocated once and
// kept from batch to batch. Self-attention keys and values are appended once and read through a
// table of positions per row, so reordering rows (beams) copies a few integers per row rather than
// the caches; the cross-attention keys and values are kept once per source sentence, whatever the
// number of rows decoding it.
//
// CpuDecoder reads the model's decoder weights in the model's current inference form (linear.h):
// fp32 products are LibTorch's at::addmm (as TransformerImpl's), int8 nmt's VNNI kernel (as
// InferenceWeight's), bf16 LibTorch's at::linear; it keeps references to them, so the model must
// outlive it and keep its form. It is immutable once built and may be shared by threads, each
// decoding its own CpuDecoderState single-threaded. Results equal TransformerImpl::step's up to
// float rounding (the order of sums in the loops; tests compare the two). Shapes: memory [B, S, D]
// float, ids int64 [R], logits [R, V] float. Throws c10::Error on shape mismatches; never logs.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "nmt/model/transformer.h"

namespace nmt::model {

class CpuDecoderState;

class CpuDecoder {
 public:
  // The model must be on the CPU and in eval mode; its current inference form is used.
  explicit CpuDecoder(TransformerImpl& model);
  ~CpuDecoder();
  CpuDecoder(const CpuDecoder&) = delete;
  CpuDecoder& operator=(const CpuDecoder&) = delete;

  // Readies `state` for B rows, one per sentence: memory [B, S, D] is the encoder output,
  // lengths[b] the real (unpadded) positions of sentence b. Keeps the state's memory from an
  // earlier batch (a state may start many batches, one after another).
  void start(CpuDecoderState& state,
             const at::Tensor& memory,
             const std::vector<int64_t>& lengths) const;
  // Logits [R, V] of the next token after last_ids [R]; advances the state by one position. The
  // logits live in the state's buffer: the next step overwrites them.
  [[nodiscard]] at::Tensor step(CpuDecoderState& state, const at::Tensor& last_ids) const;

  struct Weights;  // cpu_decoder.cpp

 private:
  std::unique_ptr<const Weights> weights_;
};

// One batch's decoding state: the rows' self-attention caches, the sentences' cross-attention keys
// and values, and scratch buffers. Movable, not copyable.
class CpuDecoderState {
 public:
  CpuDecoderState();
  ~CpuDecoderState();
  CpuDecoderState(CpuDecoderState&&) noexcept;
  CpuDecoderState& operator=(CpuDecoderState&&) noexcept;

  // Keeps, in this order, the rows given by rows int64 [R'] (reorders beams, drops finished rows).
  void keep_rows(const at::Tensor& rows);
  int64_t rows() const;

  struct Buffers;  // cpu_decoder.cpp

 private:
  friend class CpuDecoder;
  std::unique_ptr<Buffers> buffers_;
};

}  // namespace nmt::model
