#include "model/int8_matmul.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace nmt::model {
namespace {

// The element loops below are the only per-element work outside the GEMM; they are compiled
// for AVX-512 as well as the baseline and the processor picks one when the program loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NMT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NMT_VECTOR_CLONES
#endif

// Row of n floats -> int8 with scale max|x| / 127; returns the scale.
NMT_VECTOR_CLONES float quantize_row(const float* x, int64_t n, int8_t* out) {
  float largest = 0.0f;
  for (int64_t k = 0; k < n; ++k) largest = std::max(largest, std::fabs(x[k]));
  const float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
  const float inverse = 1.0f / scale;
  for (int64_t k = 0; k < n; ++k) out[k] = static_cast<int8_t>(std::nearbyint(x[k] * inverse));
  return scale;
}

// The same quantisation, written as q + 128 in unsigned bytes (the kernel's activations).
NMT_VECTOR_CLONES float quantize_row_shifted(const float* x, int64_t n, uint8_t* out) {
  float largest = 0.0f;
  for (int64_t k = 0; k < n; ++k) largest = std::max(largest, std::fabs(x[k]));
  const float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
  const float inverse = 1.0f / scale;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = static_cast<uint8_t>(static_cast<int>(std::nearbyint(x[k] * inverse)) + 128);
  }
  return scale;
}

// One output row: y[j] = row_scale * column_scales[j] * sums[j] + bias[j].
NMT_VECTOR_CLONES void dequantize_row(const int32_t* sums,
                                      int64_t n,
                                      float row_scale,
                                      const float* column_scales,
                                      const float* bias,
                                      float* y) {
  if (bias) {
    for (int64_t j = 0; j < n; ++j) {
      y[j] = row_scale * column_scales[j] * static_cast<float>(sums[j]) + bias[j];
    }
  } else {
    for (int64_t j = 0; j < n; ++j)
      y[j] = row_scale * column_scales[j] * static_cast<float>(sums[j]);
  }
}

}  // namespace

bool has_int8_matmul() {
#ifdef NMT_WITH_VNNI_KERNEL
  return true;
#else
  return false;
#endif
}

Int8Matrix quantize_rows(const at::Tensor& weight) {
  TORCH_CHECK(has_int8_matmul(), "int8 inference needs nmt's x86-64 int8 kernel");
  const at::Tensor w = weight.detach().to(at::kFloat).contiguous().cpu();
  Int8Matrix matrix;
  matrix.rows = w.size(0);
  matrix.cols = w.size(1);
  std::vector<int8_t> values(static_cast<std::size_t>(matrix.rows * matrix.cols));
  matrix.scales.resize(static_cast<std::size_t>(matrix.rows));
  const float* data = w.data_ptr<float>();
  at::parallel_for(0, matrix.rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      matrix.scales[static_cast<std::size_t>(r)] =
          quantize_row(data + r * matrix.cols, matrix.cols, values.data() + r * matrix.cols);
    }
  });
#ifdef NMT_WITH_VNNI_KERNEL
  matrix.packed = pack_int8_weight(values.data(), matrix.rows, matrix.cols);
#endif
  return matrix;
}

void int8_gemm(const float* x,
               int64_t m,
               const Int8Matrix& weight,
               const float* bias,
               float* y,
               Int8Scratch& scratch) {
  const int64_t k = weight.cols;
  const int64_t n = weight.rows;
  const int64_t stride = weight.packed.padded_cols;
  scratch.activations.resize(static_cast<std::size_t>(m * stride));
  scratch.row_scales.resize(static_cast<std::size_t>(m));
  scratch.sums.resize(static_cast<std::size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    scratch.row_scales[static_cast<std::size_t>(i)] =
        quantize_row_shifted(x + i * k, k, scratch.activations.data() + i * stride);
  }
#ifdef NMT_WITH_VNNI_KERNEL
  vnni_gemm(scratch.activations.data(), m, weight.packed, scratch.sums.data());
#endif
  for (int64_t i = 0; i < m; ++i) {
    dequantize_row(scratch.sums.data() + i * n, n, scratch.row_scales[static_cast<std::size_t>(i)],
                   weight.scales.data(), bias, y + i * n);
  }
}

at::Tensor int8_linear(const at::Tensor& x, const Int8Matrix& weight, const at::Tensor& bias) {
  TORCH_CHECK(x.dim() == 2 && x.size(1) == weight.cols, "int8_linear: expected input [M, ",
              weight.cols, "], got ", x.sizes());
  const at::Tensor input = x.to(at::kFloat).contiguous();
  const at::Tensor bias_float = bias.defined() ? bias.to(at::kFloat).contiguous() : at::Tensor();
  at::Tensor y = at::empty({input.size(0), weight.rows}, at::kFloat);
  Int8Scratch scratch;
  int8_gemm(input.data_ptr<float>(), input.size(0), weight,
            bias_float.defined() ? bias_float.data_ptr<float>() : nullptr, y.data_ptr<float>(),
            scratch);
  return y;
}

}  // namespace nmt::model
