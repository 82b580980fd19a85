#include "model/vnni_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace nmt::model {
namespace {

constexpr int64_t kPanel = 64;  // output columns per panel: four 16-lane accumulators
constexpr int64_t kLanes = 16;

#if defined(__x86_64__) && defined(__GNUC__)
#define NMT_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#else
#error "vnni_gemm.cpp needs x86-64 and GCC or Clang"
#endif

int64_t panel_count(int64_t rows) { return (rows + kPanel - 1) / kPanel; }

// What turns one panel's integer sums into outputs: its columns' compensation, scales and biases.
struct PanelOutput {
  const int32_t* compensation;  // 64 entries (zero past the last column)
  const float* column_scales;   // `columns` entries
  const float* bias;            // `columns` entries, or null
  int64_t columns;              // valid columns of the panel, 1 to 64
  float* y;                     // the panel's first column in row 0 of the output
  int64_t y_stride;
};

// Rows [0, Rows) of the product for one panel: Rows x 4 accumulators of 16 columns, each step
// multiplying 4 activations of every row by the panel's next 4 x 64 weights; then the sums, less
// the compensation, scaled into the output.
template <int Rows>
NMT_VNNI void panel_kernel(const uint8_t* activations,
                           int64_t stride,
                           const int8_t* panel,
                           int64_t steps,
                           const float* row_scales,
                           const PanelOutput& out) {
  __m512i accumulators[Rows][4];
  for (int r = 0; r < Rows; ++r) {
    for (int j = 0; j < 4; ++j) accumulators[r][j] = _mm512_setzero_si512();
  }
  for (int64_t step = 0; step < steps; ++step) {
    const int8_t* weights = panel + step * kPanel * 4;
    const __m512i w0 = _mm512_loadu_si512(weights);
    const __m512i w1 = _mm512_loadu_si512(weights + 64);
    const __m512i w2 = _mm512_loadu_si512(weights + 128);
    const __m512i w3 = _mm512_loadu_si512(weights + 192);
    for (int r = 0; r < Rows; ++r) {
      int32_t four;
      std::memcpy(&four, activations + r * stride + step * 4, sizeof four);
      const __m512i a = _mm512_set1_epi32(four);
      accumulators[r][0] = _mm512_dpbusd_epi32(accumulators[r][0], a, w0);
      accumulators[r][1] = _mm512_dpbusd_epi32(accumulators[r][1], a, w1);
      accumulators[r][2] = _mm512_dpbusd_epi32(accumulators[r][2], a, w2);
      accumulators[r][3] = _mm512_dpbusd_epi32(accumulators[r][3], a, w3);
    }
  }
  for (int j = 0; j < 4; ++j) {
    const int64_t first = j * kLanes;
    if (first >= out.columns) break;
    const auto mask = static_cast<__mmask16>(
        out.columns - first >= kLanes ? 0xFFFF : (1u << (out.columns - first)) - 1u);
    const __m512i shift = _mm512_loadu_si512(out.compensation + first);
    const __m512 column_scales = _mm512_maskz_loadu_ps(mask, out.column_scales + first);
    const __m512 bias = out.bias ? _mm512_maskz_loadu_ps(mask, out.bias + first) : __m512{};
    for (int r = 0; r < Rows; ++r) {
      // (The masked conversion is _mm512_cvtepi32_ps without GCC 12's false "may be used
      // uninitialized" warning about that intrinsic's undefined source.)
      const __m512 sums = _mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), 0xFFFF,
                                                  _mm512_sub_epi32(accumulators[r][j], shift));
      __m512 value =
          _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(row_scales[r]), column_scales), sums);
      if (out.bias) value = _mm512_add_ps(value, bias);
      _mm512_mask_storeu_ps(out.y + r * out.y_stride + first, mask, value);
    }
  }
}

}  // namespace

PackedInt8Weight pack_int8_weight(const int8_t* weight, int64_t rows, int64_t cols) {
  PackedInt8Weight packed;
  packed.rows = rows;
  packed.cols = cols;
  packed.padded_cols = (cols + 3) / 4 * 4;
  const int64_t steps = packed.padded_cols / 4;
  const int64_t panels = panel_count(rows);
  packed.panels.assign(static_cast<std::size_t>(panels * steps * kPanel * 4), 0);
  packed.compensation.assign(static_cast<std::size_t>(panels * kPanel), 0);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t panel = row / kPanel;
    const int64_t lane = row % kPanel;
    int32_t sum = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const int8_t value = weight[row * cols + k];
      sum += value;
      const int64_t step = k / 4;
      packed
          .panels[static_cast<std::size_t>(((panel * steps + step) * kPanel + lane) * 4 + k % 4)] =
          value;
    }
    packed.compensation[static_cast<std::size_t>(row)] = 128 * sum;
  }
  return packed;
}

void vnni_gemm(const uint8_t* activations,
               int64_t m,
               const PackedInt8Weight& w,
               const float* row_scales,
               const float* column_scales,
               const float* bias,
               float* y) {
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  for (int64_t panel = 0; panel < panel_count(w.rows); ++panel) {
    const int8_t* weights = w.panels.data() + panel * steps * kPanel * 4;
    const int64_t first = panel * kPanel;
    PanelOutput out{w.compensation.data() + first,
                    column_scales + first,
                    bias ? bias + first : nullptr,
                    std::min(kPanel, w.rows - first),
                    y + first,
                    w.rows};
    int64_t row = 0;
    for (; row + 4 <= m; row += 4, out.y += 4 * w.rows) {
      panel_kernel<4>(activations + row * stride, stride, weights, steps, row_scales + row, out);
    }
    const uint8_t* rest = activations + row * stride;
    switch (m - row) {
      case 3:
        panel_kernel<3>(rest, stride, weights, steps, row_scales + row, out);
        break;
      case 2:
        panel_kernel<2>(rest, stride, weights, steps, row_scales + row, out);
        break;
      case 1:
        panel_kernel<1>(rest, stride, weights, steps, row_scales + row, out);
        break;
      default:
        break;
    }
  }
}

}  // namespace nmt::model
