// int8 matrix products for CPU inference through oneDNN's integer GEMM (dnnl_gemm_s8s8s32, which
// uses AVX512-VNNI where the processor has it). Weights are quantised once, symmetrically per
// output row; each input row is quantised symmetrically when it arrives, so both scales factor
// out of the integer sums:  y[i, j] = sx[i] * sw[j] * sum_k xq[i, k] wq[j, k] + b[j].
// The GEMM is in libnmt_int8.so (model/int8_backend.h), built only where oneDNN's headers are
// found (NMT_WITH_DNNL); private to src/model.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "nmt/private_module.h"

namespace nmt::model {

// A weight matrix [rows, cols] as int8 values and one fp32 scale per row, with the GEMM that
// multiplies it.
struct Int8Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int8_t> values;                   // row-major
  std::vector<float> scales;                    // per row: value * scale = weight
  std::shared_ptr<const PrivateModule> module;  // libnmt_int8.so
  int (*gemm)(int64_t, int64_t, int64_t, const int8_t*, const int8_t*, int32_t*) = nullptr;
};

// True when this build has oneDNN's integer GEMM.
bool has_int8_matmul();

// weight quantised, with the GEMM module loaded. Throws nmt::Error when it cannot be loaded.
Int8Matrix quantize_rows(const at::Tensor& weight);

// Buffers int8_gemm reuses from one call to the next.
struct Int8Scratch {
  std::vector<int8_t> quantized;
  std::vector<float> row_scales;
  std::vector<int32_t> sums;
};

// y [m, weight.rows] = x [m, weight.cols] W^T + bias (bias may be null), row-major floats, on the
// calling thread (oneDNN's own threads follow the caller's OpenMP setting).
void int8_gemm(const float* x,
               int64_t m,
               const Int8Matrix& weight,
               const float* bias,
               float* y,
               Int8Scratch& scratch);

// x [M, cols] float -> x W^T + bias [M, rows] float (bias may be undefined).
at::Tensor int8_linear(const at::Tensor& x, const Int8Matrix& weight, const at::Tensor& bias);

}  // namespace nmt::model
