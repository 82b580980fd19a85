#include "nmt/train/adam.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <string>

#include "nmt/error.h"

namespace nmt::train {
namespace {

// p *= decay;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
// p -= step_size * m / (sqrt(v) * inv_sqrt_bc2 + eps)
void fused_cpu_update(float* param,
                      const float* grad,
                      float* m,
                      float* v,
                      int64_t size,
                      float beta1,
                      float beta2,
                      float step_size,
                      float inv_sqrt_bias2,
                      float eps,
                      float decay) {
  at::parallel_for(0, size, 1 << 15, [=](int64_t begin, int64_t end) {
    const float one_minus_beta1 = 1.0f - beta1;
    const float one_minus_beta2 = 1.0f - beta2;
    for (int64_t i = begin; i < end; ++i) {
      const float g = grad[i];
      const float m_i = beta1 * m[i] + one_minus_beta1 * g;
      const float v_i = beta2 * v[i] + one_minus_beta2 * g * g;
      m[i] = m_i;
      v[i] = v_i;
      param[i] = param[i] * decay - step_size * m_i / (std::sqrt(v_i) * inv_sqrt_bias2 + eps);
    }
  });
}

}  // namespace

Adam::Adam(std::vector<at::Tensor> parameters, AdamOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  for (const at::Tensor& p : parameters_) {
    TORCH_CHECK(p.is_contiguous(), "Adam needs contiguous parameters");
    first_moments_.push_back(at::zeros_like(p));
    second_moments_.push_back(at::zeros_like(p));
  }
}

void Adam::step(double lr) {
  ++steps_;
  const double bias1 = 1.0 - std::pow(options_.beta1, static_cast<double>(steps_));
  const double bias2 = 1.0 - std::pow(options_.beta2, static_cast<double>(steps_));
  const double step_size = lr / bias1;
  const double inv_sqrt_bias2 = 1.0 / std::sqrt(bias2);
  // AdamW's decoupled weight decay (Loshchilov & Hutter 2019): p -= lr * wd * p before the update.
  const double decay = 1.0 - lr * options_.weight_decay;
  c10::NoGradGuard no_grad;

  std::vector<at::Tensor> params, grads, ms, vs;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    at::Tensor& p = parameters_[i];
    const at::Tensor& g = p.grad();
    if (!g.defined()) continue;
    if (p.is_cpu() && p.scalar_type() == at::kFloat) {
      const at::Tensor grad = g.contiguous();
      fused_cpu_update(p.data_ptr<float>(), grad.data_ptr<float>(),
                       first_moments_[i].data_ptr<float>(), second_moments_[i].data_ptr<float>(),
                       p.numel(), static_cast<float>(options_.beta1),
                       static_cast<float>(options_.beta2), static_cast<float>(step_size),
                       static_cast<float>(inv_sqrt_bias2), static_cast<float>(options_.eps),
                       static_cast<float>(decay));
    } else {
      params.push_back(p);
      grads.push_back(g);
      ms.push_back(first_moments_[i]);
      vs.push_back(second_moments_[i]);
    }
  }
  if (params.empty()) return;
  if (options_.weight_decay > 0.0) at::_foreach_mul_(params, decay);
  at::_foreach_mul_(ms, options_.beta1);
  at::_foreach_add_(ms, grads, 1.0 - options_.beta1);
  at::_foreach_mul_(vs, options_.beta2);
  at::_foreach_addcmul_(vs, grads, grads, 1.0 - options_.beta2);
  std::vector<at::Tensor> denominators = at::_foreach_sqrt(vs);
  at::_foreach_mul_(denominators, inv_sqrt_bias2);
  at::_foreach_add_(denominators, options_.eps);
  at::_foreach_addcdiv_(params, ms, denominators, -step_size);
}

void Adam::zero_grad() {
  for (at::Tensor& p : parameters_) {
    if (p.grad().defined()) p.mutable_grad().reset();
  }
}

void Adam::load_state(int64_t steps,
                      const std::vector<at::Tensor>& first,
                      const std::vector<at::Tensor>& second) {
  if (first.size() != parameters_.size() || second.size() != parameters_.size()) {
    throw CheckpointError("optimiser state has " + std::to_string(first.size()) +
                          " tensors, the model " + std::to_string(parameters_.size()));
  }
  c10::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (!first[i].sizes().equals(parameters_[i].sizes()) ||
        !second[i].sizes().equals(parameters_[i].sizes())) {
      throw CheckpointError("optimiser state tensor " + std::to_string(i) +
                            " does not match its parameter's shape");
    }
    first_moments_[i].copy_(first[i]);
    second_moments_[i].copy_(second[i]);
  }
  steps_ = steps;
}

}  // namespace nmt::train
