// int8 matrix products for CPU decoding on AVX512-VNNI, with the weights packed once for the
// kernel. Decoding multiplies a few dozen rows by weight matrices of a few hundred by a few
// thousand: a general-purpose int8 GEMM (oneDNN's BLAS-like call) repacks the weights and computes
// their compensation at every call, which at these shapes costs more than the products; here the
// packing is done once, when the model is prepared.
//
// The product is VNNI's: unsigned 8-bit activations times signed 8-bit weights, summed exactly in
// 32 bits. Activations quantised to signed int8 (q in [-127, 127]) are shifted by 128 to unsigned,
// and the shift's contribution, 128 * sum_k w[j, k], is subtracted per output column, so the sums
// are exactly sum_k q[i, k] w[j, k], as a signed int8 GEMM gives them. vnni_gemm requires a CPU
// with AVX512-VNNI (cpu_has_avx512_vnni()); amx_gemm, built where the compiler knows AMX
// (NMT_WITH_AMX_KERNEL), one with AMX-INT8 (cpu_has_amx_int8()) and computes the same sums on
// Intel's tile unit; avx_vnni_gemm, built by the same compilers (NMT_WITH_AVX_VNNI_KERNEL), one
// with AVX-VNNI (cpu_has_avx_vnni()), on 256-bit vectors; avx2_gemm one with AVX2
// (cpu_has_avx2()). All read the same packed weights and give the same bytes. Private to
// src/model; never throws.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::model {

// Weights W [rows, cols] int8 in the kernel's layout: panels of 64 output columns, each panel
// [ceil(cols / 4)][64][4] bytes, so that one step of the kernel reads 4 consecutive 64-byte rows.
struct PackedInt8Weight {
  int64_t rows = 0;         // output columns of the product (W's rows)
  int64_t cols = 0;         // the shared dimension
  int64_t padded_cols = 0;  // cols rounded up to a multiple of 4
  std::vector<int8_t> panels;
  std::vector<int32_t> compensation;  // per row of W: 128 * sum_k w[row, k]
};

// Packs W [rows, cols] (row-major int8).
PackedInt8Weight pack_int8_weight(const int8_t* weight, int64_t rows, int64_t cols);

// The panels [begin, end) of a product: output columns [64 * begin, min(64 * end, w.rows)). Panels
// are independent, so threads may each compute a range of them; any split gives the same bytes.
struct PanelRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// All of a packed weight's panels.
PanelRange all_panels(const PackedInt8Weight& w);

// One product: y [m, weight->rows] = row_scales[i] * column_scales[j] * (q W^T)[i, j] + bias[j],
// from the activations q [m, weight->cols] in bytes with row stride weight->padded_cols (the
// padding bytes may hold anything). What the bytes hold depends on the kernel: q + 128, unsigned,
// for vnni_gemm and amx_gemm; q itself, signed, for avx2_gemm. The integer sums are exact; the
// scaling is (row_scale * column_scale) * sum, then + bias, in that order.
struct Int8Product {
  const uint8_t* activations = nullptr;
  int64_t m = 0;
  const PackedInt8Weight* weight = nullptr;
  const float* row_scales = nullptr;     // m entries
  const float* column_scales = nullptr;  // weight->rows entries
  const float* bias = nullptr;           // weight->rows entries, or null
  float* y = nullptr;
};

// The signature of the kernels: the product's output columns in `panels` only.
using Int8Kernel = void (*)(const Int8Product& product, PanelRange panels);

// The product on AVX512-VNNI, from q + 128.
void vnni_gemm(const Int8Product& product, PanelRange panels);

// vnni_gemm's product with AVX2 instructions (model/avx2_gemm.cpp), for CPUs with AVX2
// (cpu_has_avx2()) and without AVX512-VNNI: the same bytes from the same packed weights, but from
// q itself in signed bytes, not q + 128: AVX2 multiplies exactly only signed values of magnitude
// <= 127, and the quantiser writes either form at no cost.
void avx2_gemm(const Int8Product& product, PanelRange panels);

// The product with AVX2 instructions for weights of magnitude at most 63 (model/int8_matmul.h's
// kInt7Level), from q + 128 as vnni_gemm: a pair of products is then at most 2 * 255 * 63, below
// vpmaddubsw's saturation, so the sums are exact with 3 instructions per 32 products, where
// avx2_gemm needs 5 for weights of the full range. For such weights every kernel gives the same
// bytes; with larger ones this kernel's sums are wrong.
void avx2_gemm_7bit(const Int8Product& product, PanelRange panels);

#ifdef NMT_WITH_AVX_VNNI_KERNEL
// vnni_gemm's product on 256-bit vectors with AVX-VNNI (Intel's client CPUs since Alder Lake, AMD's
// since Zen 5), for CPUs without AVX512-VNNI, from q + 128 (model/avx_vnni_gemm.cpp).
void avx_vnni_gemm(const Int8Product& product, PanelRange panels);

// avx_vnni_gemm's source compiled for AVX512-VL's encoding of the same instruction, for CPUs with
// AVX512-VNNI and AVX512-VL: never chosen (vnni_gemm is faster there), but it lets the tests check
// avx_vnni_gemm's arithmetic on CPUs that lack AVX-VNNI.
void avx512_vl_vnni_gemm(const Int8Product& product, PanelRange panels);
#endif

#ifdef NMT_WITH_AMX_KERNEL
// vnni_gemm's product on AMX tiles, 16 rows at a time, from q + 128.
void amx_gemm(const Int8Product& product, PanelRange panels);
#endif

}  // namespace nmt::model
