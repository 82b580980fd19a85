// The Transformer seen as a StepModel: start() encodes and precomputes the cross-attention keys and
// values of every decoder layer, step() runs one position through the decoder against the growing
// self-attention cache (one position per step, not the whole prefix), keep_rows() reorders or
// shrinks every cache. The steps run on the model's LibTorch modules (any device; attention maps),
// or, given a CpuDecoder of the model, on it (model/cpu_decoder.h: the CPU's fast path); the
// encoder is the model's either way. Runs under torch::InferenceMode; on CUDA with bf16 autocast
// when asked.
#pragma once

#include "nmt/decode/search.h"
#include "nmt/model/cpu_decoder.h"
#include "nmt/model/transformer.h"

namespace nmt::decode {

class TransformerStepModel final : public StepModel {
 public:
  // cpu_decoder, when given, must be built from model and outlive this object.
  explicit TransformerStepModel(model::Transformer model,
                                const model::CpuDecoder* cpu_decoder = nullptr);

  void start(const at::Tensor& source) override;
  at::Tensor step(const at::Tensor& last_ids) override;
  void keep_rows(const at::Tensor& rows) override;

  // Work done so far, for throughput figures: source positions encoded (padding included) and
  // decoder rows stepped (one per hypothesis per step).
  int64_t source_positions() const { return source_positions_; }
  int64_t step_rows() const { return step_rows_; }

 private:
  model::Transformer model_;
  const model::CpuDecoder* cpu_decoder_;
  model::DecoderState state_;
  model::CpuDecoderState cpu_state_;
  int64_t source_positions_ = 0;
  int64_t step_rows_ = 0;
};

}  // namespace nmt::decode
