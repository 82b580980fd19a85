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

// Rows [0, Rows) of the product for one panel: Rows x 4 accumulators of 16 columns, each step
// multiplying 4 activations of every row by the panel's next 4 x 64 weights.
template <int Rows>
NMT_VNNI void panel_kernel(const uint8_t* activations,
                           int64_t stride,
                           const int8_t* panel,
                           int64_t steps,
                           const int32_t* compensation,
                           int64_t columns,
                           int32_t* sums,
                           int64_t sums_stride) {
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
    if (first >= columns) break;
    const __m512i shift = _mm512_loadu_si512(compensation + first);
    const auto mask =
        static_cast<__mmask16>(columns - first >= kLanes ? 0xFFFF : (1u << (columns - first)) - 1u);
    for (int r = 0; r < Rows; ++r) {
      _mm512_mask_storeu_epi32(sums + r * sums_stride + first, mask,
                               _mm512_sub_epi32(accumulators[r][j], shift));
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

void vnni_gemm(const uint8_t* activations, int64_t m, const PackedInt8Weight& w, int32_t* sums) {
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  for (int64_t panel = 0; panel < panel_count(w.rows); ++panel) {
    const int8_t* weights = w.panels.data() + panel * steps * kPanel * 4;
    const int32_t* compensation = w.compensation.data() + panel * kPanel;
    const int64_t columns = std::min(kPanel, w.rows - panel * kPanel);
    int32_t* out = sums + panel * kPanel;
    int64_t row = 0;
    for (; row + 4 <= m; row += 4) {
      panel_kernel<4>(activations + row * stride, stride, weights, steps, compensation, columns,
                      out + row * w.rows, w.rows);
    }
    const uint8_t* rest = activations + row * stride;
    int32_t* rest_out = out + row * w.rows;
    switch (m - row) {
      case 3:
        panel_kernel<3>(rest, stride, weights, steps, compensation, columns, rest_out, w.rows);
        break;
      case 2:
        panel_kernel<2>(rest, stride, weights, steps, compensation, columns, rest_out, w.rows);
        break;
      case 1:
        panel_kernel<1>(rest, stride, weights, steps, compensation, columns, rest_out, w.rows);
        break;
      default:
        break;
    }
  }
}

}  // namespace nmt::model
