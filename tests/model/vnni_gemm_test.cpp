// The int8 kernels' sums (AVX512-VNNI's, AVX2's, AVX-VNNI's and AMX's) are exactly the integer
// products of the activations and the weights for every shape remainder, and for outputs large
// enough for the AVX2 kernels to go in passes of rows; their outputs are those sums scaled by row
// and column, plus the bias, so the kernels give the same bytes, computed whole or a range of
// output panels at a time.
#include "model/vnni_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "nmt/cpu_features.h"

namespace nmt::model {
namespace {

// One product of m rows by `rows` output columns over `cols`, weights in
// [-weight_level, weight_level]: its sums are exactly the integer products, its outputs those sums
// scaled and biased, and a range of panels at a time gives the same bytes.
void expect_exact_product(Int8Kernel kernel,
                          int weight_level,
                          int64_t m,
                          int64_t rows,
                          int64_t cols,
                          std::mt19937& generator) {
  std::uniform_int_distribution<int> value(-127, 127);
  std::uniform_int_distribution<int> weight_value(-weight_level, weight_level);
  std::vector<int8_t> weight(static_cast<std::size_t>(rows * cols));
  std::vector<int8_t> input(static_cast<std::size_t>(m * cols));
  for (int8_t& w : weight) w = static_cast<int8_t>(weight_value(generator));
  for (int8_t& x : input) x = static_cast<int8_t>(value(generator));
  const PackedInt8Weight packed = pack_int8_weight(weight.data(), rows, cols);
  ASSERT_EQ(packed.padded_cols % 4, 0);
  // Padding bytes hold garbage on purpose: they meet zero weights.
  std::vector<uint8_t> activations(static_cast<std::size_t>(m * packed.padded_cols), 201);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t k = 0; k < cols; ++k) {
      activations[static_cast<std::size_t>(i * packed.padded_cols + k)] =
          static_cast<uint8_t>(input[static_cast<std::size_t>(i * cols + k)] + 128);
    }
  }
  std::vector<float> row_scales(static_cast<std::size_t>(m));
  std::vector<float> column_scales(static_cast<std::size_t>(rows));
  std::vector<float> bias(static_cast<std::size_t>(rows));
  for (float& scale : row_scales) scale = 0.01f * static_cast<float>(value(generator) + 128);
  for (float& scale : column_scales) scale = 0.5f + 0.001f * static_cast<float>(value(generator));
  for (float& b : bias) b = 0.1f * static_cast<float>(value(generator));
  const std::vector<float> ones(static_cast<std::size_t>(std::max(m, rows)), 1.0f);
  // Sums below 2^24 are exact as floats, so unit scales show the integer sums themselves.
  std::vector<float> sums(static_cast<std::size_t>(m * rows), -1.0f);
  std::vector<float> y(static_cast<std::size_t>(m * rows), -1.0f);
  const PanelRange panels = all_panels(packed);
  kernel({activations.data(), m, &packed, ones.data(), ones.data(), nullptr, sums.data()}, panels);
  const Int8Product scaled_product{activations.data(),   m,           &packed, row_scales.data(),
                                   column_scales.data(), bias.data(), y.data()};
  kernel(scaled_product, panels);
  // As threads share the work: the first panel, then the rest, give the same bytes.
  std::vector<float> y_in_parts(y.size(), -1.0f);
  Int8Product in_parts = scaled_product;
  in_parts.y = y_in_parts.data();
  for (const PanelRange part : {PanelRange{0, 1}, PanelRange{1, panels.end}}) {
    kernel(in_parts, part);
  }
  ASSERT_EQ(y_in_parts, y) << "m " << m << ", rows " << rows << ", cols " << cols;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      int32_t expected = 0;
      for (int64_t k = 0; k < cols; ++k) {
        expected += input[static_cast<std::size_t>(i * cols + k)] *
                    weight[static_cast<std::size_t>(j * cols + k)];
      }
      const auto at = static_cast<std::size_t>(i * rows + j);
      ASSERT_EQ(sums[at], static_cast<float>(expected))
          << "m " << m << ", rows " << rows << ", cols " << cols << " at " << i << ", " << j;
      const float scaled = row_scales[static_cast<std::size_t>(i)] *
                               column_scales[static_cast<std::size_t>(j)] *
                               static_cast<float>(expected) +
                           bias[static_cast<std::size_t>(j)];
      ASSERT_EQ(y[at], scaled) << "m " << m << ", rows " << rows << ", cols " << cols;
    }
  }
}

// Every remainder of rows m (VNNI's blocks of 4, AVX2's and AVX-VNNI's 6, AMX's 16), of output
// columns (panels of 64, AVX-VNNI's groups of 16, AMX's groups of 16) and of the shared dimension
// (steps of 4, AMX's stretches of 64). Weights in [-weight_level, weight_level].
void expect_exact_products(Int8Kernel kernel, int weight_level = 127) {
  std::mt19937 generator(5);
  for (const int64_t m : {1, 2, 3, 4, 5, 6, 7, 9, 12, 16, 17, 35}) {
    for (const int64_t rows : {1, 16, 63, 64, 65, 130}) {
      for (const int64_t cols : {1, 3, 4, 6, 64, 68, 257}) {
        expect_exact_product(kernel, weight_level, m, rows, cols, generator);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Products whose outputs outgrow the cache, which the AVX2 kernels compute in passes of rows
// (model/avx2_gemm.cpp): passes of several blocks of 6 rows and a remainder (35 rows by 4,000
// columns: 560 KB of outputs), and passes of one block (13 rows by 20,000 columns).
void expect_exact_products_in_passes(Int8Kernel kernel, int weight_level) {
  std::mt19937 generator(7);
  expect_exact_product(kernel, weight_level, 35, 4000, 68, generator);
  if (::testing::Test::HasFatalFailure()) return;
  expect_exact_product(kernel, weight_level, 13, 20000, 8, generator);
}

TEST(VnniGemmTest, SumsAreTheExactIntegerProductsForEveryShapeRemainder) {
  if (!cpu_has_avx512_vnni()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  expect_exact_products(vnni_gemm);
}

// avx2_gemm from the other kernels' input, q + 128: the same q in signed bytes.
void avx2_gemm_from_shifted(const Int8Product& product, PanelRange panels) {
  std::vector<uint8_t> q(static_cast<std::size_t>(product.m * product.weight->padded_cols));
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = product.activations[i] ^ 0x80;
  Int8Product from_q = product;
  from_q.activations = q.data();
  avx2_gemm(from_q, panels);
}

TEST(Avx2GemmTest, SumsAreTheExactIntegerProductsForEveryShapeRemainder) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  expect_exact_products(avx2_gemm_from_shifted);
}

// The pairs of products AVX2 adds in 16 bits: the largest magnitudes, both signs, no saturation.
TEST(Avx2GemmTest, ProductsWithLargeOutputsAreExactToo) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  expect_exact_products_in_passes(avx2_gemm_from_shifted, 127);
}

TEST(Avx2GemmTest, ExtremeValuesDoNotSaturate) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  for (const int sign : {1, -1}) {
    const std::vector<int8_t> weight(16 * 8, static_cast<int8_t>(sign * 127));
    const PackedInt8Weight packed = pack_int8_weight(weight.data(), 16, 8);
    for (const int q : {127, -127}) {
      const std::vector<int8_t> activations(8, static_cast<int8_t>(q));
      const float one = 1.0f;
      const std::vector<float> ones(16, 1.0f);
      std::vector<float> y(16);
      avx2_gemm({reinterpret_cast<const uint8_t*>(activations.data()), 1, &packed, &one,
                 ones.data(), nullptr, y.data()},
                all_panels(packed));
      EXPECT_EQ(y, std::vector<float>(16, static_cast<float>(8 * sign * 127 * q)));
    }
  }
}

TEST(Avx2Gemm7BitTest, SumsAreTheExactIntegerProductsOfSevenBitWeights) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  expect_exact_products(avx2_gemm_7bit, 63);
}

TEST(Avx2Gemm7BitTest, ProductsWithLargeOutputsAreExactToo) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  expect_exact_products_in_passes(avx2_gemm_7bit, 63);
}

// The other kernels on 7-bit weights: the same sums (what lets every CPU decode int8w7 alike).
TEST(VnniGemmTest, SumsAreExactForSevenBitWeightsToo) {
  if (!cpu_has_avx512_vnni()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  expect_exact_products(vnni_gemm, 63);
}

// vpmaddubsw's pairs at their largest: q + 128 = 255 or 1 against weights of +-63 stay exact; a
// weight of 127, outside the kernel's range, saturates, which is why int8's own weights go to
// avx2_gemm instead.
TEST(Avx2Gemm7BitTest, ExtremeSevenBitValuesDoNotSaturateWhereFullRangeWeightsWould) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  const auto product_of = [](int w, int q) {
    const std::vector<int8_t> weight(16 * 8, static_cast<int8_t>(w));
    const PackedInt8Weight packed = pack_int8_weight(weight.data(), 16, 8);
    const std::vector<uint8_t> activations(8, static_cast<uint8_t>(q + 128));
    const float one = 1.0f;
    const std::vector<float> ones(16, 1.0f);
    std::vector<float> y(16);
    avx2_gemm_7bit({activations.data(), 1, &packed, &one, ones.data(), nullptr, y.data()},
                   all_panels(packed));
    return y;
  };
  for (const int w : {63, -63}) {
    for (const int q : {127, -127}) {
      EXPECT_EQ(product_of(w, q), std::vector<float>(16, static_cast<float>(8 * w * q)))
          << "w " << w << ", q " << q;
    }
  }
  EXPECT_NE(product_of(127, 127), std::vector<float>(16, static_cast<float>(8 * 127 * 127)));
}

TEST(AvxVnniGemmTest, SumsAreTheExactIntegerProductsForEveryShapeRemainder) {
#ifdef NMT_WITH_AVX_VNNI_KERNEL
  if (!cpu_has_avx_vnni()) {
    GTEST_SKIP() << "this CPU has no AVX-VNNI (the kernel's source is checked on AVX512-VL below)";
  }
  expect_exact_products(avx_vnni_gemm);
#else
  GTEST_SKIP() << "built without the AVX-VNNI kernel (compiler older than GCC 11 / Clang 12)";
#endif
}

// The AVX-VNNI kernel's source, compiled for AVX512-VL's encoding of the same instruction, where
// the CPU lacks AVX-VNNI itself (AMD's Zen 4, Intel's Xeons before Sapphire Rapids).
TEST(AvxVnniGemmTest, ItsSourceGivesExactSumsOnAvx512Vl) {
#ifdef NMT_WITH_AVX_VNNI_KERNEL
  if (!cpu_has_avx512_vnni() || __builtin_cpu_supports("avx512vl") == 0) {
    GTEST_SKIP() << "this CPU (or NMT_CPU_ISA's tier) has no AVX512-VNNI with AVX512-VL";
  }
  expect_exact_products(avx512_vl_vnni_gemm);
#else
  GTEST_SKIP() << "built without the AVX-VNNI kernel (compiler older than GCC 11 / Clang 12)";
#endif
}

TEST(AmxGemmTest, SumsAreTheExactIntegerProductsForEveryShapeRemainder) {
#ifdef NMT_WITH_AMX_KERNEL
  if (!cpu_has_amx_int8()) GTEST_SKIP() << "this CPU has no AMX-INT8 (or the kernel refuses it)";
  expect_exact_products(amx_gemm);
#else
  GTEST_SKIP() << "built without the AMX kernel (compiler older than GCC 11 / Clang 12)";
#endif
}

}  // namespace
}  // namespace nmt::model
