#include "nmt/decode/ensemble_step_model.h"

#include <ATen/ATen.h>

#include "nmt/error.h"

namespace nmt::decode {

EnsembleStepModel::EnsembleStepModel(std::vector<StepModel*> members)
    : members_(std::move(members)) {
  if (members_.empty()) throw ConfigError("ensemble: needs at least one model");
}

void EnsembleStepModel::start(const at::Tensor& source) {
  for (StepModel* member : members_) member->start(source);
}

at::Tensor EnsembleStepModel::step(const at::Tensor& last_ids) {
  at::Tensor sum;
  for (StepModel* member : members_) {
    at::Tensor log_probs = at::log_softmax(member->step(last_ids), -1, at::kFloat);
    sum = sum.defined() ? sum.add_(log_probs) : log_probs;
  }
  return sum.div_(static_cast<double>(members_.size()));
}

void EnsembleStepModel::keep_rows(const at::Tensor& rows) {
  for (StepModel* member : members_) member->keep_rows(rows);
}

}  // namespace nmt::decode
