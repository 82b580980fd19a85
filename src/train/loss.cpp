#include "nmt/train/loss.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "nmt/text/vocab.h"

namespace nmt::train {
namespace {

// One [N, V] fp32 buffer per step: the log-probabilities, computed by LibTorch's fused log-softmax
// in the forward pass and turned into the gradient in place in the backward pass. Every other
// [N, V] temporary is avoided: on the CPU each fresh buffer of this size can cost its size in page
// faults (docs/performance.md, Memory).
class SmoothedCrossEntropy : public torch::autograd::Function<SmoothedCrossEntropy> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* context,
                            const at::Tensor& logits,
                            const at::Tensor& targets,
                            double smoothing) {
    const at::Tensor log_probs = at::log_softmax(logits, 1, at::kFloat);
    const at::Tensor is_real = targets.ne(text::kPadId);
    const at::Tensor safe_targets = targets.masked_fill(is_real.logical_not(), 0);
    at::Tensor per_token =
        log_probs.gather(1, safe_targets.unsqueeze(1)).squeeze(1).mul(-(1.0 - smoothing));
    if (smoothing > 0.0) per_token.sub_(log_probs.mean(1), smoothing);
    context->save_for_backward({log_probs, safe_targets, is_real});
    context->saved_data["smoothing"] = smoothing;
    context->saved_data["dtype"] = static_cast<int64_t>(logits.scalar_type());
    return per_token.masked_fill_(is_real.logical_not(), 0.0).sum();
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* context,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = context->get_saved_variables();
    at::Tensor grad = saved[0];  // the log-probabilities, no longer needed as such
    const at::Tensor& targets = saved[1];
    const at::Tensor& is_real = saved[2];
    const double smoothing = context->saved_data["smoothing"].toDouble();
    const auto dtype = static_cast<at::ScalarType>(context->saved_data["dtype"].toInt());
    // d loss_i / d z_i = softmax(z_i) - (1 - eps) onehot(y_i) - eps / V, zero for <PAD> rows.
    grad.exp_();
    grad.scatter_add_(1, targets.unsqueeze(1),
                      at::full({targets.size(0), 1}, -(1.0 - smoothing), grad.options()));
    if (smoothing > 0.0) grad.sub_(smoothing / static_cast<double>(grad.size(1)));
    grad.mul_((is_real.to(grad.scalar_type()) * grad_outputs[0]).unsqueeze(1));
    return {grad.to(dtype), at::Tensor(), at::Tensor()};
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
