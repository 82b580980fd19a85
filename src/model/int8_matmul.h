// int8 matrix products for CPU inference (model/vnni_gemm.h's kernels). Weights are quantised
// once, symmetrically per output row, and packed for the kernel; each input row is quantised
// symmetrically when it arrives, so both scales factor out of the integer sums:
//   y[i, j] = sx[i] * sw[j] * sum_k xq[i, k] wq[j, k] + b[j].
// The kernels are built for x86-64 (NMT_WITH_VNNI_KERNEL); the slowest needs AVX2 (callers check
// cpu_has_avx2()). Private to src/model.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "model/vnni_gemm.h"

namespace nmt::model {

// The largest magnitude a quantised weight may take: int8's full range, or 7 bits. Weights of at
// most 63 let AVX2's fast multiply (vpmaddubsw) take the activations as q + 128, unsigned, and
// still sum each pair exactly: 2 * 255 * 63 = 32130 < 32767 (avx2_gemm_7bit, model/vnni_gemm.h).
// Every kernel gives the same bytes for the same weights, of either level.
constexpr int kInt8Level = 127;
constexpr int kInt7Level = 63;

// A weight matrix [rows, cols] as int8 values packed for the kernel and one fp32 scale per row.
struct Int8Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  int level = kInt8Level;  // weights in [-level, level]
  PackedInt8Weight packed;
  std::vector<float> scales;  // per row: value * scale = weight
};

// True when this build has the int8 kernel (x86-64).
bool has_int8_matmul();

// True when int8_gemm multiplies on AMX tiles (model/vnni_gemm.h's amx_gemm) rather than with
// AVX512-VNNI instructions: the build has the AMX kernel and cpu_has_amx_int8().
bool int8_gemm_uses_amx();

// True when int8_gemm multiplies with AVX-VNNI's 256-bit instructions (model/vnni_gemm.h's
// avx_vnni_gemm): the build has that kernel, and this CPU has AVX-VNNI but not AVX512-VNNI.
bool int8_gemm_uses_avx_vnni();

// True when int8_gemm's 8-bit weights run on a VNNI kernel (AMX, AVX512-VNNI or AVX-VNNI) rather
// than on avx2_gemm.
bool int8_gemm_uses_vnni();

// Quantises weight [rows, cols] per row to [-level, level]; level is kInt8Level or kInt7Level.
Int8Matrix quantize_rows(const at::Tensor& weight, int level);

// Buffers int8_gemm reuses from one call to the next.
struct Int8Scratch {
  std::vector<uint8_t> activations;  // quantised inputs in the kernel's form, rows of padded_cols
  std::vector<float> row_scales;
};

// y [m, weight.rows] = x [m, weight.cols] W^T + bias (bias may be null), row-major floats, on the
// calling thread.
void int8_gemm(const float* x,
               int64_t m,
               const Int8Matrix& weight,
               const float* bias,
               float* y,
               Int8Scratch& scratch);

// x [M, cols] float -> x W^T + bias [M, rows] float (bias may be undefined).
at::Tensor int8_linear(const at::Tensor& x, const Int8Matrix& weight, const at::Tensor& bias);

}  // namespace nmt::model
