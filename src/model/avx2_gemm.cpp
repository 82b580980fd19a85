// vnni_gemm's product with AVX2 instructions, for CPUs without AVX512-VNNI (model/vnni_gemm.h).
//
// AVX2's one 8-bit multiply, vpmaddubsw, multiplies unsigned by signed bytes and adds each pair of
// products into a saturating 16-bit sum: with VNNI's unsigned activations (q + 128, up to 255) two
// products can pass 32767, and a saturated sum is a wrong one. So this kernel reads q itself and
// forms each product q * w as |w| * (q * sign(w)): |w| <= 127 and |q| <= 127 keep a pair under
// 2 * 127 * 127 = 32258, exact. vpmaddwd then adds the pairs into 32-bit sums. These are
// sum_k q w itself, with no shift to compensate, and are scaled by the same operations in the same
// order as VNNI's, so the three kernels give the same bytes.
//
// q * sign(w) is q's bytes negated where w < 0, (q ^ mask) - mask with mask = (w < 0): two
// additions-class instructions rather than vpsignb, which runs on the same two pipes as the
// multiplies (measured on an AMD Zen 4: vpsignb, vpmaddubsw and vpmaddwd share 2 per cycle, xor
// and subtraction have 4). Where w = 0, |w| = 0 zeroes the product whatever the negation gave, so
// the padding bytes, which may hold anything, meet zero weights and add nothing.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "model/vnni_gemm.h"

namespace nmt::model {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define NMT_AVX2 __attribute__((target("avx2")))
#else
#error "avx2_gemm.cpp needs x86-64 and GCC or Clang"
#endif

constexpr int64_t kPanel = 64;       // output columns per panel, as the packing lays them out
constexpr int64_t kLanes = 8;        // columns per 256-bit vector
constexpr int64_t kStepBytes = 256;  // one step of a panel: 64 columns x 4 bytes
constexpr int kVectors = 2;          // columns a kernel call covers: 2 vectors of 8

// Where one call's outputs go: kVectors * 8 columns from `first` of the product.
struct Columns {
  int64_t first;  // the first column of the product
  int64_t count;  // valid columns, 1 to 16
  const float* column_scales;
  const float* bias;  // or null
  float* y;           // row 0's output at column `first`
  int64_t y_stride;
};

// The lanes of a vector holding columns [first_lane, first_lane + 8) below `count`.
NMT_AVX2 inline __m256i lane_mask(int64_t first_lane, int64_t count) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count - first_lane)), lanes);
}

// (row_scale * column_scales) * sums + bias, written to the valid lanes.
NMT_AVX2 inline void store_outputs(
    __m256i sums, float row_scale, const Columns& out, int vector, float* y) {
  const int64_t lane0 = vector * kLanes;
  const __m256i mask = lane_mask(lane0, out.count);
  const __m256 scales = _mm256_maskload_ps(out.column_scales + lane0, mask);
  __m256 value =
      _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(row_scale), scales), _mm256_cvtepi32_ps(sums));
  if (out.bias) value = _mm256_add_ps(value, _mm256_maskload_ps(out.bias + lane0, mask));
  _mm256_maskstore_ps(y + lane0, mask, value);
}

// Rows [0, Rows) by kVectors * 8 columns of one panel: `weights` points at the columns' first
// step, each step 4 bytes of every column, steps kStepBytes apart. Three rows keep 6 sums, the
// steps' weights, and the temporaries within AVX2's 16 registers.
template <int Rows>
NMT_AVX2 void columns_kernel(const int8_t* activations,
                             int64_t stride,
                             const int8_t* weights,
                             int64_t steps,
                             const float* row_scales,
                             const Columns& out) {
  __m256i sums[Rows][kVectors];
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < kVectors; ++v) sums[r][v] = _mm256_setzero_si256();
  }
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t step = 0; step < steps; ++step) {
    __m256i negative[kVectors];
    __m256i magnitude[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      const __m256i w = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(weights + step * kStepBytes + v * 32));
      negative[v] = _mm256_cmpgt_epi8(_mm256_setzero_si256(), w);
      magnitude[v] = _mm256_abs_epi8(w);
    }
    for (int r = 0; r < Rows; ++r) {
      int32_t four;
      std::memcpy(&four, activations + r * stride + step * 4, sizeof four);
      const __m256i q = _mm256_set1_epi32(four);
      for (int v = 0; v < kVectors; ++v) {
        const __m256i signed_q = _mm256_sub_epi8(_mm256_xor_si256(q, negative[v]), negative[v]);
        const __m256i pairs = _mm256_maddubs_epi16(magnitude[v], signed_q);
        sums[r][v] = _mm256_add_epi32(sums[r][v], _mm256_madd_epi16(pairs, ones));
      }
    }
  }
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < kVectors && v * kLanes < out.count; ++v) {
      store_outputs(sums[r][v], row_scales[r], out, v, out.y + r * out.y_stride);
    }
  }
}

}  // namespace

void avx2_gemm(const Int8Product& product, PanelRange panels) {
  const PackedInt8Weight& w = *product.weight;
  // This kernel's bytes are q itself (vnni_gemm.h).
  const auto* activations = reinterpret_cast<const int8_t*>(product.activations);
  const float* row_scales = product.row_scales;
  const int64_t m = product.m;
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  constexpr int64_t kColumns = kVectors * kLanes;
  for (int64_t panel = panels.begin; panel < panels.end; ++panel) {
    const int8_t* panel_weights = w.panels.data() + panel * steps * kStepBytes;
    for (int64_t within = 0; within < kPanel; within += kColumns) {
      const int64_t first = panel * kPanel + within;
      if (first >= w.rows) break;
      Columns out{first,
                  std::min(kColumns, w.rows - first),
                  product.column_scales + first,
                  product.bias ? product.bias + first : nullptr,
                  product.y + first,
                  w.rows};
      const int8_t* weights = panel_weights + within * 4;
      int64_t row = 0;
      for (; row + 3 <= m; row += 3, out.y += 3 * w.rows) {
        columns_kernel<3>(activations + row * stride, stride, weights, steps, row_scales + row,
                          out);
      }
      if (m - row == 2) {
        columns_kernel<2>(activations + row * stride, stride, weights, steps, row_scales + row,
                          out);
      } else if (m - row == 1) {
        columns_kernel<1>(activations + row * stride, stride, weights, steps, row_scales + row,
                          out);
      }
    }
  }
}

}  // namespace nmt::model
