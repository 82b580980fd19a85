#include "model/batched_products.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>

#ifdef NMT_WITH_CBLAS
#include <cblas.h>
#endif

#include "torch_compat.h"

namespace nmt::model {
namespace {

#ifdef NMT_WITH_CBLAS
// How the BLAS reads one operand's matrices [rows, cols] where they lie: row-major with leading
// dimension `ld`, or column-major (as a transpose() view leaves them), which is the row-major
// storage of the transpose.
struct BlasOperand {
  const float* data;
  int64_t batch_stride;
  int64_t head_stride;
  CBLAS_TRANSPOSE transpose;
  int ld;
};

// `t` as the BLAS can read it in place, or from a contiguous copy kept in `copy`.
BlasOperand blas_operand(const at::Tensor& t, at::Tensor& copy) {
  const int64_t rows = t.size(2);
  const int64_t cols = t.size(3);
  const at::Tensor* source = &t;
  CBLAS_TRANSPOSE transpose = CblasNoTrans;
  int64_t ld = t.stride(2);
  if (t.stride(3) == 1 && ld >= std::max<int64_t>(cols, 1)) {
    // row-major in place
  } else if (t.stride(2) == 1 && t.stride(3) >= std::max<int64_t>(rows, 1)) {
    transpose = CblasTrans;
    ld = t.stride(3);
  } else {
    copy = t.contiguous();
    source = &copy;
    ld = std::max<int64_t>(cols, 1);
  }
  return {source->data_ptr<float>(), source->stride(0), source->stride(1), transpose,
          static_cast<int>(ld)};
}

// a [B, H, m, k] times b [B, H, k, n], one sgemm per sentence and head, split over the threads.
// Inside at::parallel_for's region an OpenMP BLAS runs each call on the calling thread.
at::Tensor blas_product(const at::Tensor& a, const at::Tensor& b) {
  const int64_t heads = a.size(1);
  const int64_t m = a.size(2);
  const int64_t k = a.size(3);
  const int64_t n = b.size(3);
  at::Tensor result = at::empty({a.size(0), heads, m, n}, a.options());
  if (result.numel() == 0) return result;
  if (k == 0) return result.zero_();
  at::Tensor a_copy;
  at::Tensor b_copy;
  const BlasOperand left = blas_operand(a, a_copy);
  const BlasOperand right = blas_operand(b, b_copy);
  float* out = result.data_ptr<float>();
  at::parallel_for(0, a.size(0) * heads, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t batch = i / heads;
      const int64_t head = i % heads;
      cblas_sgemm(CblasRowMajor, left.transpose, right.transpose, static_cast<int>(m),
                  static_cast<int>(n), static_cast<int>(k), 1.0f,
                  left.data + batch * left.batch_stride + head * left.head_stride, left.ld,
                  right.data + batch * right.batch_stride + head * right.head_stride, right.ld,
                  0.0f, out + i * m * n, static_cast<int>(n));
    }
  });
  return result;
}

// blas_product with its gradients, themselves blas_products: dA = dC B^T, dB = A^T dC.
class BlasProduct : public torch::autograd::Function<BlasProduct> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* context,
                            const at::Tensor& a,
                            const at::Tensor& b) {
    context->save_for_backward({a, b});
    return blas_product(a, b);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* context,
                                               torch::autograd::tensor_list gradients) {
    const torch::autograd::variable_list saved = context->get_saved_variables();
    const at::Tensor& gradient = gradients[0];
    at::Tensor a_gradient;
    at::Tensor b_gradient;
    if (context->needs_input_grad(0)) a_gradient = blas_product(gradient, saved[1].transpose(2, 3));
    if (context->needs_input_grad(1)) b_gradient = blas_product(saved[0].transpose(2, 3), gradient);
    return {a_gradient, b_gradient};
  }
};

// Only fp32 CPU tensors of attention's shape, outside autocast (where at::matmul would multiply in
// bf16), take the direct path.
bool takes_blas(const at::Tensor& a, const at::Tensor& b) {
  return batched_product_calls_blas() && a.is_cpu() && b.is_cpu() &&
         a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat && a.dim() == 4 &&
         b.dim() == 4 && a.size(0) == b.size(0) && a.size(1) == b.size(1) &&
         a.size(3) == b.size(2) && !compat::autocast_enabled(c10::DeviceType::CPU);
}
#endif

}  // namespace

bool batched_product_calls_blas() {
#ifdef NMT_WITH_CBLAS
  static const bool without_mkl = !at::hasMKL();
  return without_mkl;
#else
  return false;
#endif
}

at::Tensor batched_product(const at::Tensor& a, const at::Tensor& b) {
#ifdef NMT_WITH_CBLAS
  if (takes_blas(a, b)) return BlasProduct::apply(a, b);
#endif
  return at::matmul(a, b);
}

}  // namespace nmt::model
