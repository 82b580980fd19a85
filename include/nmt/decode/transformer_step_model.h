// The Transformer seen as a StepModel: start() encodes and precomputes the cross-attention keys and
// values of every decoder layer, step() runs one position through the decoder against the growing
// self-attention cache (one position per step, not the whole prefix), keep_rows() reorders or
// shrinks every cache. Runs under torch::InferenceMode; on CUDA with bf16 autocast when asked.
#pragma once

#include "nmt/decode/search.h"
#include "nmt/model/transformer.h"

namespace nmt::decode {

class TransformerStepModel final : public StepModel {
 public:
  explicit TransformerStepModel(model::Transformer model);

  void start(const at::Tensor& source) override;
  at::Tensor step(const at::Tensor& last_ids) override;
  void keep_rows(const at::Tensor& rows) override;

  // Work done so far, for throughput figures: source positions encoded (padding included) and
  // decoder rows stepped (one per hypothesis per step).
  int64_t source_positions() const { return source_positions_; }
  int64_t step_rows() const { return step_rows_; }

 private:
  model::Transformer model_;
  model::DecoderState state_;
  int64_t source_positions_ = 0;
  int64_t step_rows_ = 0;
};

}  // namespace nmt::decode
