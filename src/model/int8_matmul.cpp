#include "model/int8_matmul.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

#include "nmt/cpu_features.h"
#include "vector_clones.h"

namespace nmt::model {
namespace {

// The element loops below are the only per-element work outside the GEMM (NMT_VECTOR_CLONES).

// max |x[k]|, vectorised (`omp simd`, compiled with -fopenmp-simd).
NMT_VECTOR_CLONES(float, largest_magnitude, (const float* x, int64_t n), (x, n)) {
  float largest = 0.0f;
#pragma omp simd reduction(max : largest)
  for (int64_t k = 0; k < n; ++k) largest = std::max(largest, std::fabs(x[k]));
  return largest;
}

// v rounded to the nearest integer, ties to even, as std::nearbyint in the default rounding mode,
// for |v| < 2^22: adding 1.5 * 2^23 leaves no fraction bits. Unlike nearbyint it vectorises.
inline float round_to_integer(float v) {
  constexpr float kShifter = 12582912.0f;
  return (v + kShifter) - kShifter;
}

// Row of n floats -> q = round(x / scale) in [-level, level] with scale max|x| / level, written
// through store(k, q); returns the scale.
template <class Store>
float quantize(const float* x, int64_t n, int level, const Store& store) {
  const float largest = largest_magnitude(x, n);
  const float scale = largest > 0.0f ? largest / static_cast<float>(level) : 1.0f;
  const float inverse = 1.0f / scale;
  for (int64_t k = 0; k < n; ++k) store(k, static_cast<int>(round_to_integer(x[k] * inverse)));
  return scale;
}

// The weights' quantisation, as int8 in [-level, level].
float quantize_row(const float* x, int64_t n, int level, int8_t* out) {
  return quantize(x, n, level, [out](int64_t k, int q) { out[k] = static_cast<int8_t>(q); });
}

// The activations' quantisation, written as the bytes of q + offset: q + 128, unsigned, for the
// VNNI and AMX kernels; q itself, as signed bytes, for avx2_gemm (offset 0).
NMT_VECTOR_CLONES(float,
                  quantize_row_for_kernel,
                  (const float* x, int64_t n, int offset, uint8_t* out),
                  (x, n, offset, out)) {
  return quantize(x, n, kInt8Level,
                  [out, offset](int64_t k, int q) { out[k] = static_cast<uint8_t>(q + offset); });
}

}  // namespace

bool has_int8_matmul() {
#ifdef NMT_WITH_VNNI_KERNEL
  return true;
#else
  return false;
#endif
}

bool int8_gemm_uses_amx() {
#ifdef NMT_WITH_AMX_KERNEL
  static const bool uses_amx = cpu_has_amx_int8();
  return uses_amx;
#else
  return false;
#endif
}

namespace {

#ifdef NMT_WITH_VNNI_KERNEL
// A kernel and what the quantiser adds to q for it: 128 for the kernels of unsigned input, 0 for
// avx2_gemm's q.
struct Kernel {
  Int8Kernel run;
  int activation_offset;
};

// The best of the kernels this CPU (under NMT_CPU_ISA's cap) runs, for weights of either level;
// for a given weight matrix all give the same bytes.
class KernelChoice {
 public:
  KernelChoice() {
#ifdef NMT_WITH_AMX_KERNEL
    if (int8_gemm_uses_amx()) {
      choose_for_both({&amx_gemm, 128});
      return;
    }
#endif
    if (cpu_has_avx512_vnni()) {
      choose_for_both({&vnni_gemm, 128});
      return;
    }
#ifdef NMT_WITH_AVX_VNNI_KERNEL
    if (cpu_has_avx_vnni()) choose_for_both({&avx_vnni_gemm, 128});
#endif
  }

  const Kernel& for_level(int weight_level) const {
    return weight_level == kInt7Level ? seven_bit_ : eight_bit_;
  }

  bool runs(Int8Kernel kernel) const { return eight_bit_.run == kernel; }

 private:
  void choose_for_both(Kernel kernel) { eight_bit_ = seven_bit_ = kernel; }

  Kernel eight_bit_{&avx2_gemm, 0};
  Kernel seven_bit_{&avx2_gemm_7bit, 128};
};

const KernelChoice& int8_kernel() {
  static const KernelChoice kernel;
  return kernel;
}
#endif

// What the quantiser adds to q for this CPU's kernel for weights of the level.
int activation_offset(int weight_level) {
#ifdef NMT_WITH_VNNI_KERNEL
  return int8_kernel().for_level(weight_level).activation_offset;
#else
  (void)weight_level;
  return 128;
#endif
}

}  // namespace

bool int8_gemm_uses_avx_vnni() {
#ifdef NMT_WITH_AVX_VNNI_KERNEL
  return int8_kernel().runs(&avx_vnni_gemm);
#else
  return false;
#endif
}

bool int8_gemm_uses_vnni() {
#ifdef NMT_WITH_VNNI_KERNEL
  return !int8_kernel().runs(&avx2_gemm);
#else
  return false;
#endif
}

Int8Matrix quantize_rows(const at::Tensor& weight, int level) {
  TORCH_CHECK(level == kInt8Level || level == kInt7Level, "quantize_rows: level ", level,
              " is neither ", kInt8Level, " nor ", kInt7Level);
  TORCH_CHECK(has_int8_matmul(), "int8 inference needs nmt's x86-64 int8 kernel");
  const at::Tensor w = weight.detach().to(at::kFloat).contiguous().cpu();
  Int8Matrix matrix;
  matrix.rows = w.size(0);
  matrix.cols = w.size(1);
  matrix.level = level;
  std::vector<int8_t> values(static_cast<std::size_t>(matrix.rows * matrix.cols));
  matrix.scales.resize(static_cast<std::size_t>(matrix.rows));
  const float* data = w.data_ptr<float>();
  at::parallel_for(0, matrix.rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      matrix.scales[static_cast<std::size_t>(r)] =
          quantize_row(data + r * matrix.cols, matrix.cols, level, values.data() + r * matrix.cols);
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
  const int64_t stride = weight.packed.padded_cols;
  scratch.activations.resize(static_cast<std::size_t>(m * stride));
  scratch.row_scales.resize(static_cast<std::size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    scratch.row_scales[static_cast<std::size_t>(i)] = quantize_row_for_kernel(
        x + i * k, k, activation_offset(weight.level), scratch.activations.data() + i * stride);
  }
#ifdef NMT_WITH_VNNI_KERNEL
  const Kernel& kernel = int8_kernel().for_level(weight.level);
  // The output columns are split among the caller's threads (a translator's --decode-threads);
  // each share is worth a thread only above about a million multiply-adds.
  const PanelRange panels = all_panels(weight.packed);
  const int64_t panel_work = std::max<int64_t>(1, m * stride * 64);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / panel_work);
  const Int8Product product{scratch.activations.data(),
                            m,
                            &weight.packed,
                            scratch.row_scales.data(),
                            weight.scales.data(),
                            bias,
                            y};
  at::parallel_for(panels.begin, panels.end, grain, [&](int64_t begin, int64_t end) {
    kernel.run(product, {begin, end});
  });
#else
  (void)bias;
  (void)y;
#endif
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
