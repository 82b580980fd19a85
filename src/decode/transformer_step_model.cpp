#include "nmt/decode/transformer_step_model.h"

namespace nmt::decode {

TransformerStepModel::TransformerStepModel(model::Transformer model) : model_(std::move(model)) {}

void TransformerStepModel::start(const at::Tensor& source) {
  source_positions_ += source.numel();
  state_ = model_->start(model_->encode(source), model::padding_mask(source));
}

at::Tensor TransformerStepModel::step(const at::Tensor& last_ids) {
  step_rows_ += last_ids.numel();
  return model_->step(last_ids, state_);
}

void TransformerStepModel::keep_rows(const at::Tensor& rows) {
  model::TransformerImpl::keep_rows(state_, rows);
}

}  // namespace nmt::decode
