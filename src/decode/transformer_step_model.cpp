#include "nmt/decode/transformer_step_model.h"

#include <ATen/ATen.h>

#include "nmt/text/vocab.h"

namespace nmt::decode {

TransformerStepModel::TransformerStepModel(model::Transformer model,
                                           const model::CpuDecoder* cpu_decoder)
    : model_(std::move(model)), cpu_decoder_(cpu_decoder) {}

void TransformerStepModel::start(const at::Tensor& source) {
  source_positions_ += source.numel();
  const at::Tensor memory = model_->encode(source);
  if (!cpu_decoder_) {
    state_ = model_->start(memory, model::padding_mask(source));
    return;
  }
  const at::Tensor lengths = source.ne(text::kPadId).sum(1).cpu();
  const int64_t* data = lengths.data_ptr<int64_t>();
  cpu_decoder_->start(cpu_state_, memory, std::vector<int64_t>(data, data + lengths.numel()));
}

at::Tensor TransformerStepModel::step(const at::Tensor& last_ids) {
  step_rows_ += last_ids.numel();
  if (cpu_decoder_) return cpu_decoder_->step(cpu_state_, last_ids);
  return model_->step(last_ids, state_);
}

void TransformerStepModel::keep_rows(const at::Tensor& rows) {
  if (cpu_decoder_) {
    cpu_state_.keep_rows(rows);
  } else {
    model::TransformerImpl::keep_rows(state_, rows);
  }
}

}  // namespace nmt::decode
