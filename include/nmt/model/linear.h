// A fully connected layer, y = x W^T + b, that can also run in a faster number format for
// inference. Its parameters, their names ("weight", "bias"), order and initialisation are exactly
// torch::nn::Linear's, so checkpoints, optimiser state and training are unchanged by it.
//
//  - kFp32: at::linear on the fp32 weights (always while training).
//  - kBf16: a bf16 copy of the weights; the input is cast to bf16 and the output is bf16.
//  - kInt8: dynamic quantisation: the weights int8 per output row, each input row quantised when
//    it arrives, integer products by nmt's AMX, AVX512-VNNI or AVX2 kernel on weights packed
//    once (model/vnni_gemm.h); fp32 in and out. LibTorch's own dynamic-quantised linear was
//    measured and not used: its oneDNN path builds a new kernel for every input scale, about 1 ms
//    a call (docs/performance.md).
//  - kInt8W7: kInt8 with the weights rounded to 7 bits, [-63, 63]: on CPUs without VNNI the AVX2
//    kernel then multiplies with 3 instructions per 32 products instead of 5, its sums still
//    exact; where a VNNI kernel runs it is kInt8's speed.
//
// Shapes: x [..., in] -> [..., out]. Throws c10::Error on shape mismatches; never logs.
#pragma once

#include <torch/nn/module.h>

#include <memory>

namespace nmt::model {

struct Int8Matrix;  // src/model/int8_matmul.h

// The number format a model's matrix products run in at inference time.
enum class WeightForm { kFp32, kBf16, kInt8, kInt8W7 };

// True for the forms that run on nmt's int8 kernels, with 8- or 7-bit weights.
inline bool is_int8(WeightForm form) {
  return form == WeightForm::kInt8 || form == WeightForm::kInt8W7;
}

// A weight matrix [out, in] (and bias [out]) held in one WeightForm for inference.
class InferenceWeight {
 public:
  // Prepares the form of weight and bias (copies them: later changes to them are not seen).
  void prepare(WeightForm form, const torch::Tensor& weight, const torch::Tensor& bias);
  WeightForm form() const { return form_; }
  // x W^T + b in the prepared form; requires form() != kFp32.
  torch::Tensor apply(const torch::Tensor& x) const;
  // The prepared copies, for decoders that multiply on raw arrays (cpu_decoder.h): the int8 matrix
  // (kInt8, kInt8W7), the bf16 weight and bias (kBf16), the fp32 bias (kInt8, kInt8W7).
  const std::shared_ptr<const Int8Matrix>& int8_matrix() const { return int8_; }
  const torch::Tensor& weight() const { return weight_; }
  const torch::Tensor& bias() const { return bias_; }

 private:
  WeightForm form_ = WeightForm::kFp32;
  torch::Tensor weight_;  // bf16
  torch::Tensor bias_;    // bf16, or fp32 for int8
  std::shared_ptr<const Int8Matrix> int8_;
};

class LinearImpl : public torch::nn::Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features);

  torch::Tensor forward(const torch::Tensor& x);
  // The form used outside training; kFp32 drops any other form's copies.
  void set_inference_form(WeightForm form);
  const InferenceWeight& inference() const { return inference_; }

  torch::Tensor weight;  // [out, in]
  torch::Tensor bias;    // [out]

 private:
  InferenceWeight inference_;
};
TORCH_MODULE(Linear);

// True when this build has the int8 kernels (x86-64); they run on CPUs with AVX2.
bool has_int8_inference();

// True when int8 products run on AMX tiles here: the build has the AMX kernel and this CPU (and
// its operating system) lets nmt use AMX-INT8.
bool int8_runs_on_amx();

// True when int8 products run with AVX-VNNI's 256-bit instructions here: the build has that kernel,
// and this CPU has AVX-VNNI but not AVX512-VNNI.
bool int8_runs_on_avx_vnni();

// True when int8 products with 8-bit weights run on a VNNI kernel here (AMX, AVX512-VNNI or
// AVX-VNNI); false where only the AVX2 kernels run, or none.
bool int8_runs_on_vnni();

}  // namespace nmt::model
