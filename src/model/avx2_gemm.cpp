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
#include <array>
#include <cstring>
#include <utility>

#include "model/vnni_gemm.h"

namespace nmt::model {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define NMT_AVX2 __attribute__((target("avx2")))
#else
#error "avx2_gemm.cpp needs x86-64 and GCC or Clang"
#endif

constexpr int64_t kPanel = 64;       // output columns per panel, as the packing lays them out
constexpr int64_t kLanes = 8;        // columns per 256-bit vector, and per kernel call
constexpr int64_t kStepBytes = 256;  // one step of a panel: 64 columns x 4 bytes
// Rows per kernel call. One vector of columns by 6 rows keeps the sums, the step's weights and the
// temporaries in 12 of AVX2's 16 registers, and spreads the step's fixed work (sign and magnitude
// of the weights) over 6 rows. Measured on an AMD Zen 4 held to AVX2, int8 beam 5 end to end: 6 or
// 5 rows by 8 columns, about 8% faster than 3 rows by 16 columns (which spilled sums to the
// stack), 4 and 7 rows in between.
constexpr int kRows = 6;

// Where one call's outputs go: 8 columns from `first` of the product.
struct Columns {
  int64_t first;  // the first column of the product
  int64_t count;  // valid columns, 1 to 8
  const float* column_scales;
  const float* bias;  // or null
  float* y;           // row 0's output at column `first`
  int64_t y_stride;
};

// (row_scale * column_scales) * sums + bias, written to the valid lanes.
NMT_AVX2 inline void store_outputs(__m256i sums, float row_scale, const Columns& out, float* y) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(out.count)), lanes);
  const __m256 scales = _mm256_maskload_ps(out.column_scales, mask);
  __m256 value =
      _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(row_scale), scales), _mm256_cvtepi32_ps(sums));
  if (out.bias) value = _mm256_add_ps(value, _mm256_maskload_ps(out.bias, mask));
  if (out.count == kLanes) {
    _mm256_storeu_ps(y, value);  // see model/avx_vnni_kernel.inc on masked stores
  } else {
    _mm256_maskstore_ps(y, mask, value);
  }
}

// Rows [0, Rows) by 8 columns of one panel: `weights` points at the columns' first step, each
// step 4 bytes of every column, steps kStepBytes apart.
template <int Rows>
NMT_AVX2 void columns_kernel(const int8_t* activations,
                             int64_t stride,
                             const int8_t* weights,
                             int64_t steps,
                             const float* row_scales,
                             const Columns& out) {
  __m256i sums[Rows];
  for (int r = 0; r < Rows; ++r) sums[r] = _mm256_setzero_si256();
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t step = 0; step < steps; ++step) {
    const __m256i w =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + step * kStepBytes));
    const __m256i negative = _mm256_cmpgt_epi8(_mm256_setzero_si256(), w);
    const __m256i magnitude = _mm256_abs_epi8(w);
    for (int r = 0; r < Rows; ++r) {
      int32_t four;
      std::memcpy(&four, activations + r * stride + step * 4, sizeof four);
      const __m256i q = _mm256_set1_epi32(four);
      const __m256i signed_q = _mm256_sub_epi8(_mm256_xor_si256(q, negative), negative);
      const __m256i pairs = _mm256_maddubs_epi16(magnitude, signed_q);
      sums[r] = _mm256_add_epi32(sums[r], _mm256_madd_epi16(pairs, ones));
    }
  }
  for (int r = 0; r < Rows; ++r)
    store_outputs(sums[r], row_scales[r], out, out.y + r * out.y_stride);
}

using ColumnsKernel =
    void (*)(const int8_t*, int64_t, const int8_t*, int64_t, const float*, const Columns&);

// columns_kernel for the last m % kRows rows, by their number.
template <int... Rows>
constexpr std::array<ColumnsKernel, sizeof...(Rows) + 1> remainder_kernels(
    std::integer_sequence<int, 0, Rows...>) {
  return {nullptr, &columns_kernel<Rows>...};
}
constexpr auto kRemainderKernels = remainder_kernels(std::make_integer_sequence<int, kRows>());

// avx2_gemm_7bit: the 256-bit kernel of model/avx_vnni_kernel.inc with vpdpbusd's exact dot
// product done by AVX2's three instructions, exact for weights of magnitude <= 63.
namespace seven_bit {
#define NMT_DOT_TARGET __attribute__((target("avx2")))
NMT_DOT_TARGET inline __m256i dot_accumulate(__m256i sums, __m256i activations, __m256i weights) {
  const __m256i pairs = _mm256_maddubs_epi16(activations, weights);
  return _mm256_add_epi32(sums, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
}
#include "model/avx_vnni_kernel.inc"
#undef NMT_DOT_TARGET
}  // namespace seven_bit

// avx2_gemm in one pass: the product on weights of the full range.
void full_range_gemm(const Int8Product& product, PanelRange panels) {
  const PackedInt8Weight& w = *product.weight;
  // This kernel's bytes are q itself (vnni_gemm.h).
  const auto* activations = reinterpret_cast<const int8_t*>(product.activations);
  const float* row_scales = product.row_scales;
  const int64_t m = product.m;
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  for (int64_t panel = panels.begin; panel < panels.end; ++panel) {
    const int8_t* panel_weights = w.panels.data() + panel * steps * kStepBytes;
    for (int64_t within = 0; within < kPanel; within += kLanes) {
      const int64_t first = panel * kPanel + within;
      if (first >= w.rows) break;
      Columns out{first,
                  std::min(kLanes, w.rows - first),
                  product.column_scales + first,
                  product.bias ? product.bias + first : nullptr,
                  product.y + first,
                  w.rows};
      const int8_t* weights = panel_weights + within * 4;
      int64_t row = 0;
      for (; row + kRows <= m; row += kRows, out.y += kRows * w.rows) {
        columns_kernel<kRows>(activations + row * stride, stride, weights, steps, row_scales + row,
                              out);
      }
      if (row < m) {
        kRemainderKernels[m - row](activations + row * stride, stride, weights, steps,
                                   row_scales + row, out);
      }
    }
  }
}

// Rows [first, first + count) of `product`.
Int8Product rows_of(const Int8Product& product, int64_t first, int64_t count) {
  Int8Product rows = product;
  rows.activations += first * product.weight->padded_cols;
  rows.m = count;
  rows.row_scales += first;
  rows.y += first * product.weight->rows;
  return rows;
}

// `gemm` over the product's rows in passes of at most kPassOutputBytes of outputs, each pass whole
// blocks of the kernel's `kernel_rows` rows. Both kernels here write a group of output columns for
// all their rows before the next group, a piece of one line per row, so they write to as many
// places at once as they have rows. Where the outputs outgrow the cache, as the output layer's
// [m, vocabulary] does for a beam's hundreds of rows, that many places at once likely defeat the
// hardware's prefetching of the lines written. Measured on an AMD Zen 4 held to AVX2, the 7-bit
// kernel alone at 8,000 columns in alternating runs: passes of 6 or 12 rows ran 320 rows
// 1.18-1.32x faster than one pass and 160 rows 1.03-1.28x; passes of 30 rows gained nothing.
// Products of under kPassOutputBytes of outputs are one pass.
void in_row_passes(Int8Kernel gemm,
                   int64_t kernel_rows,
                   const Int8Product& product,
                   PanelRange panels) {
  constexpr int64_t kPassOutputBytes = int64_t{512} << 10;
  const int64_t written_columns =
      std::min(product.weight->rows, (panels.end - panels.begin) * kPanel);
  if (written_columns <= 0) return;
  const int64_t pass_rows =
      std::max(kernel_rows, kPassOutputBytes / (written_columns * int64_t{sizeof(float)}) /
                                kernel_rows * kernel_rows);
  for (int64_t first = 0; first < product.m; first += pass_rows) {
    gemm(rows_of(product, first, std::min(pass_rows, product.m - first)), panels);
  }
}

}  // namespace

void avx2_gemm(const Int8Product& product, PanelRange panels) {
  in_row_passes(&full_range_gemm, kRows, product, panels);
}

void avx2_gemm_7bit(const Int8Product& product, PanelRange panels) {
  in_row_passes(&seven_bit::gemm, seven_bit::kRows, product, panels);
}

}  // namespace nmt::model
