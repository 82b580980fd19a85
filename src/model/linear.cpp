#include "nmt/model/linear.h"

#include <ATen/ATen.h>
#include <torch/nn/init.h>

#include <cmath>

#include "model/int8_matmul.h"
#include "nmt/model/initialisation.h"

namespace nmt::model {
bool has_int8_inference() { return has_int8_matmul(); }

bool int8_runs_on_amx() { return int8_gemm_uses_amx(); }

bool int8_runs_on_avx_vnni() { return int8_gemm_uses_avx_vnni(); }

bool int8_runs_on_vnni() { return int8_gemm_uses_vnni(); }

void InferenceWeight::prepare(WeightForm form,
                              const torch::Tensor& weight,
                              const torch::Tensor& bias) {
  torch::NoGradGuard no_grad;
  weight_ = torch::Tensor();
  bias_ = torch::Tensor();
  int8_.reset();
  form_ = form;
  if (form == WeightForm::kBf16) {
    weight_ = weight.detach().to(torch::kBFloat16);
    bias_ = bias.detach().to(torch::kBFloat16);
  } else if (is_int8(form)) {
    const int level = form == WeightForm::kInt8 ? kInt8Level : kInt7Level;
    int8_ = std::make_shared<const Int8Matrix>(quantize_rows(weight, level));
    bias_ = bias.detach().to(torch::kFloat).contiguous();
  }
}

torch::Tensor InferenceWeight::apply(const torch::Tensor& x) const {
  if (form_ == WeightForm::kBf16) return at::linear(x.to(torch::kBFloat16), weight_, bias_);
  TORCH_CHECK(int8_, "InferenceWeight::apply without a prepared form");
  // Leading dimensions are flattened into rows and restored.
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = int8_->rows;
  return int8_linear(x.reshape({-1, x.size(-1)}), *int8_, bias_).view(shape);
}

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features) {
  weight = register_parameter("weight", torch::empty({out_features, in_features}));
  bias = register_parameter("bias", torch::empty({out_features}));
  if (ParametersToBeLoaded::active()) return;
  // torch::nn::Linear's initialisation, in its order (the same seed gives the same weights).
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  torch::nn::init::uniform_(bias, -bound, bound);
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  if (inference_.form() == WeightForm::kFp32 || is_training()) return at::linear(x, weight, bias);
  return inference_.apply(x);
}

void LinearImpl::set_inference_form(WeightForm form) { inference_.prepare(form, weight, bias); }

}  // namespace nmt::model
