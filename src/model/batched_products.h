// Attention's batched matrix products, q k^T and p v, for every sentence and head at once. On a
// LibTorch built without MKL (Debian's, on OpenBLAS) at::bmm multiplies one small matrix at a time
// behind LibTorch's per-call overhead and gains nothing from a second thread; here the fp32 CPU
// case calls the BLAS directly for each matrix, the batch split over LibTorch's threads, forward
// and backward (record data/benchmarks/bmm-attention-shapes-2026-11-27-avx2/). Everything else
// (GPUs, bf16 or autocast, LibTorch with MKL, whose at::bmm is MKL's batched GEMM) goes to
// at::matmul. Private to src/model.
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt::model {

// a [B, H, m, k] times b [B, H, k, n]: [B, H, m, n], differentiable in both.
at::Tensor batched_product(const at::Tensor& a, const at::Tensor& b);

// Whether this build and LibTorch call the BLAS directly for fp32 CPU tensors (built with a CBLAS,
// NMT_WITH_CBLAS, and LibTorch without MKL).
bool batched_product_calls_blas();

}  // namespace nmt::model
