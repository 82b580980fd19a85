#include "nmt/train/loss.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "nmt/text/vocab.h"

namespace nmt::train {
namespace {

class SmoothedCrossEntropy : public torch::autograd::Function<SmoothedCrossEntropy> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* context,
                            const at::Tensor& logits,
                            const at::Tensor& targets,
                            double smoothing) {
    const at::Tensor z = logits.to(at::kFloat);
    const at::Tensor lse = at::logsumexp(z, {1});
    const at::Tensor is_real = targets.ne(text::kPadId);
    const at::Tensor safe_targets = targets.masked_fill(is_real.logical_not(), 0);
    const at::Tensor target_logit = z.gather(1, safe_targets.unsqueeze(1)).squeeze(1);
    at::Tensor per_token = lse - (1.0 - smoothing) * target_logit;
    if (smoothing > 0.0) per_token = per_token - smoothing * z.mean(1);
    context->save_for_backward({logits, lse, safe_targets, is_real});
    context->saved_data["smoothing"] = smoothing;
    return per_token.masked_fill(is_real.logical_not(), 0.0).sum();
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* context,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = context->get_saved_variables();
    const at::Tensor& logits = saved[0];
    const at::Tensor& lse = saved[1];
    const at::Tensor& targets = saved[2];
    const at::Tensor& is_real = saved[3];
    const double smoothing = context->saved_data["smoothing"].toDouble();
    // d loss_i / d z_i = softmax(z_i) - (1 - eps) onehot(y_i) - eps / V, zero for <PAD> rows.
    at::Tensor grad = (logits.to(at::kFloat) - lse.unsqueeze(1)).exp_();
    grad.scatter_add_(1, targets.unsqueeze(1),
                      at::full({targets.size(0), 1}, -(1.0 - smoothing), grad.options()));
    if (smoothing > 0.0) grad.sub_(smoothing / static_cast<double>(logits.size(1)));
    grad.mul_((is_real.to(grad.scalar_type()) * grad_outputs[0]).unsqueeze(1));
    return {grad.to(logits.scalar_type()), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

LossSum label_smoothed_cross_entropy(const at::Tensor& logits,
                                     const at::Tensor& targets,
                                     double smoothing) {
  TORCH_CHECK(logits.dim() == 2 && targets.dim() == 1 && logits.size(0) == targets.size(0),
              "expected logits [N, V] and targets [N], got ", logits.sizes(), " and ",
              targets.sizes());
  return {SmoothedCrossEntropy::apply(logits, targets, smoothing), targets.ne(text::kPadId).sum()};
}

}  // namespace nmt::train
