#include "nmt/train/validation.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cmath>
#include <limits>

#include "autocast.h"
#include "nmt/train/loss.h"

namespace nmt::train {

ValidationResult evaluate_loss(model::Transformer& model,
                               const data::EncodedCorpus& pairs,
                               const data::BatchingOptions& batching,
                               double label_smoothing,
                               const c10::Device& device,
                               bool use_bf16) {
  ValidationResult result;
  if (pairs.empty()) return result;
  const bool was_training = model->is_training();
  model->eval();
  torch::NoGradGuard no_grad;
  const auto options = at::TensorOptions().dtype(at::kDouble).device(device);
  at::Tensor loss = at::zeros({}, options);
  at::Tensor nll = at::zeros({}, options);
  const data::BatchPlan plan = data::plan_batches(pairs, batching, 0);
  for (std::size_t b = 0; b < plan.size(); ++b) {
    const data::Batch batch = data::collate(pairs, plan.batch(b));
    AutocastScope autocast(device.type(), use_bf16);
    const at::Tensor source = batch.source.to(device);
    const at::Tensor memory = model->encode(source);
    const at::Tensor hidden =
        model->decode(batch.target_in.to(device), memory, model::padding_mask(source));
    const at::Tensor targets = batch.target_out.to(device).reshape({-1});
    const at::Tensor logits = model->project(hidden.reshape({-1, hidden.size(-1)}));
    loss += label_smoothed_cross_entropy(logits, targets, label_smoothing).sum;
    nll += label_smoothed_cross_entropy(logits, targets, 0.0).sum;
    result.tokens += batch.target_tokens;
  }
  model->train(was_training);
  result.loss = loss.item<double>() / static_cast<double>(result.tokens);
  result.nll = nll.item<double>() / static_cast<double>(result.tokens);
  return result;
}

}  // namespace nmt::train
