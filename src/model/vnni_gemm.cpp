#include "model/vnni_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

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

// One row's 16 outputs of a panel from their integer sums: (row scale * column scales) *
// (sums - compensation) + bias, stored under mask.
NMT_VNNI inline void store_outputs(__m512i sums,
                                   __m512i compensation,
                                   float row_scale,
                                   __m512 column_scales,
                                   const __m512* bias,
                                   __mmask16 mask,
                                   float* y) {
  // (The masked conversion is _mm512_cvtepi32_ps without GCC 12's false "may be used
  // uninitialized" warning about that intrinsic's undefined source.)
  const __m512 exact =
      _mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), 0xFFFF, _mm512_sub_epi32(sums, compensation));
  __m512 value = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(row_scale), column_scales), exact);
  if (bias) value = _mm512_add_ps(value, *bias);
  _mm512_mask_storeu_ps(y, mask, value);
}

// The mask of the valid lanes among the 16 columns from `first` of a panel.
inline __mmask16 column_mask(const PanelOutput& out, int64_t first) {
  return static_cast<__mmask16>(out.columns - first >= kLanes ? 0xFFFF
                                                              : (1u << (out.columns - first)) - 1u);
}

// Where the outputs of the panel whose first column is `first` go.
inline PanelOutput panel_output(const Int8Product& product, int64_t first) {
  const PackedInt8Weight& w = *product.weight;
  return {w.compensation.data() + first,
          product.column_scales + first,
          product.bias ? product.bias + first : nullptr,
          std::min(kPanel, w.rows - first),
          product.y + first,
          w.rows};
}

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
    const __mmask16 mask = column_mask(out, first);
    const __m512i shift = _mm512_loadu_si512(out.compensation + first);
    const __m512 column_scales = _mm512_maskz_loadu_ps(mask, out.column_scales + first);
    const __m512 bias = out.bias ? _mm512_maskz_loadu_ps(mask, out.bias + first) : __m512{};
    for (int r = 0; r < Rows; ++r) {
      store_outputs(accumulators[r][j], shift, row_scales[r], column_scales,
                    out.bias ? &bias : nullptr, mask, out.y + r * out.y_stride + first);
    }
  }
}

#ifdef NMT_WITH_AMX_KERNEL
// AMX (Intel's tile matrix unit): one instruction multiplies a tile of 16 rows x 64 unsigned bytes
// of activations by 64 x 16 signed bytes of weights into 16 x 16 int32 sums, some 16 times the
// work of an AVX512-VNNI instruction. The weight tiles are read straight from the panels: 16 of a
// panel's 4-byte steps (64 of the shared dimension) by 16 of its columns are 16 rows of 64 bytes,
// 256 bytes apart. The sums are exact, as VNNI's, and scaled by the same code, so both kernels
// give the same bytes.
#define NMT_AMX __attribute__((target("avx512f,avx512bw,avx512vnni,amx-tile,amx-int8")))

constexpr int kTileRows = 16;
constexpr int64_t kTileBytes = 64;

// ldtilecfg's 64-byte operand (palette 1): bytes per row and rows of each of the 8 tiles.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-3: a block's sums for the panel's 4 column groups; 4: activations; 5: weights; 6 and 7:
// activations and weights of the last, shorter stretch of the shared dimension (when it is not a
// multiple of 64).
NMT_AMX void configure_tiles(int64_t tail_bytes) {
  TileConfig config;
  for (int tile = 0; tile < 6; ++tile) {
    config.bytes_per_row[tile] = kTileBytes;
    config.rows[tile] = kTileRows;
  }
  if (tail_bytes > 0) {
    config.bytes_per_row[6] = static_cast<uint16_t>(tail_bytes);
    config.rows[6] = kTileRows;
    config.bytes_per_row[7] = kTileBytes;
    config.rows[7] = static_cast<uint8_t>(tail_bytes / 4);
  }
  _tile_loadconfig(&config);
}

constexpr int64_t kStepBytes = kPanel * 4;  // one step of a panel: 64 columns x 4 bytes

// One stretch of 64 of the shared dimension: activation tile A (16 rows at `rows`) times the
// panel's four 16-column weight tiles at `weights`, each loaded in turn into tile W, added to sum
// tiles 0-3. A macro, not a function: GCC's tile intrinsics paste the tile number into the
// instruction's text, so it must be a literal where they are called.
#define NMT_AMX_STRETCH(A, W, rows, stride, weights) \
  do {                                               \
    _tile_loadd(A, rows, stride);                    \
    _tile_loadd(W, weights, kStepBytes);             \
    _tile_dpbusd(0, A, W);                           \
    _tile_loadd(W, (weights) + 64, kStepBytes);      \
    _tile_dpbusd(1, A, W);                           \
    _tile_loadd(W, (weights) + 128, kStepBytes);     \
    _tile_dpbusd(2, A, W);                           \
    _tile_loadd(W, (weights) + 192, kStepBytes);     \
    _tile_dpbusd(3, A, W);                           \
  } while (false)

// Sums of 16 rows of activations (row stride `stride`) by one panel, into sums [16][64].
NMT_AMX void amx_panel_block(
    const uint8_t* activations, int64_t stride, const int8_t* panel, int64_t steps, int32_t* sums) {
  const int64_t full = steps / kTileRows;  // stretches of 64 of the shared dimension
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t chunk = 0; chunk < full; ++chunk) {
    NMT_AMX_STRETCH(4, 5, activations + chunk * kTileBytes, stride,
                    panel + chunk * kTileRows * kStepBytes);
  }
  if (steps % kTileRows != 0) {
    NMT_AMX_STRETCH(6, 7, activations + full * kTileBytes, stride,
                    panel + full * kTileRows * kStepBytes);
  }
  constexpr int64_t kSumStride = kPanel * sizeof(int32_t);
  _tile_stored(0, sums, kSumStride);
  _tile_stored(1, sums + 16, kSumStride);
  _tile_stored(2, sums + 32, kSumStride);
  _tile_stored(3, sums + 48, kSumStride);
}

NMT_AMX void amx_product(const Int8Product& product, PanelRange panels) {
  const PackedInt8Weight& w = *product.weight;
  const uint8_t* activations = product.activations;
  const int64_t m = product.m;
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  // A last block of fewer than 16 rows is copied into 16 rows, so that tile loads stay inside
  // memory this call owns; the extra rows' sums are not written.
  const int64_t full_rows = m / kTileRows * kTileRows;
  std::vector<uint8_t> last_block;
  if (full_rows < m) {
    last_block.assign(static_cast<std::size_t>(kTileRows * stride), 0);
    std::memcpy(last_block.data(), activations + full_rows * stride,
                static_cast<std::size_t>((m - full_rows) * stride));
  }
  configure_tiles((steps % kTileRows) * 4);
  alignas(64) int32_t sums[kTileRows * kPanel];
  for (int64_t panel = panels.begin; panel < panels.end; ++panel) {
    const int8_t* weights = w.panels.data() + panel * steps * kPanel * 4;
    const int64_t first = panel * kPanel;
    const PanelOutput out = panel_output(product, first);
    for (int64_t row = 0; row < m; row += kTileRows) {
      const uint8_t* block = row < full_rows ? activations + row * stride : last_block.data();
      amx_panel_block(block, stride, weights, steps, sums);
      const int64_t rows = std::min<int64_t>(kTileRows, m - row);
      for (int j = 0; j < 4; ++j) {
        const int64_t first_column = j * kLanes;
        if (first_column >= out.columns) break;
        const __mmask16 mask = column_mask(out, first_column);
        const __m512i shift = _mm512_loadu_si512(out.compensation + first_column);
        const __m512 scales = _mm512_maskz_loadu_ps(mask, out.column_scales + first_column);
        const __m512 biases =
            out.bias ? _mm512_maskz_loadu_ps(mask, out.bias + first_column) : __m512{};
        for (int64_t r = 0; r < rows; ++r) {
          store_outputs(_mm512_load_si512(sums + r * kPanel + first_column), shift,
                        product.row_scales[row + r], scales, out.bias ? &biases : nullptr, mask,
                        out.y + (row + r) * out.y_stride + first_column);
        }
      }
    }
  }
  _tile_release();
}
#endif  // NMT_WITH_AMX_KERNEL

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

PanelRange all_panels(const PackedInt8Weight& w) { return {0, panel_count(w.rows)}; }

void vnni_gemm(const Int8Product& product, PanelRange panels) {
  const PackedInt8Weight& w = *product.weight;
  const int64_t steps = w.padded_cols / 4;
  const int64_t stride = w.padded_cols;
  for (int64_t panel = panels.begin; panel < panels.end; ++panel) {
    const int8_t* weights = w.panels.data() + panel * steps * kPanel * 4;
    PanelOutput out = panel_output(product, panel * kPanel);
    int64_t row = 0;
    for (; row + 4 <= product.m; row += 4, out.y += 4 * w.rows) {
      panel_kernel<4>(product.activations + row * stride, stride, weights, steps,
                      product.row_scales + row, out);
    }
    const uint8_t* rest = product.activations + row * stride;
    const float* rest_scales = product.row_scales + row;
    switch (product.m - row) {
      case 3:
        panel_kernel<3>(rest, stride, weights, steps, rest_scales, out);
        break;
      case 2:
        panel_kernel<2>(rest, stride, weights, steps, rest_scales, out);
        break;
      case 1:
        panel_kernel<1>(rest, stride, weights, steps, rest_scales, out);
        break;
      default:
        break;
    }
  }
}

#ifdef NMT_WITH_AMX_KERNEL
void amx_gemm(const Int8Product& product, PanelRange panels) { amx_product(product, panels); }
#endif

}  // namespace nmt::model
