// The int8 kernel's sums are exactly the integer products of the activations and the weights, for
// every remainder of rows (1 to 4 per block), of output columns (panels of 64) and of the shared
// dimension (steps of 4).
#include "model/vnni_gemm.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "nmt/cpu_features.h"

namespace nmt::model {
namespace {

TEST(VnniGemmTest, SumsAreTheExactIntegerProductsForEveryShapeRemainder) {
  if (!cpu_has_avx512_vnni()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  std::mt19937 generator(5);
  std::uniform_int_distribution<int> value(-127, 127);
  for (const int64_t m : {1, 2, 3, 4, 5, 7, 9}) {
    for (const int64_t rows : {1, 16, 63, 64, 65, 130}) {
      for (const int64_t cols : {1, 3, 4, 6, 64, 257}) {
        std::vector<int8_t> weight(static_cast<std::size_t>(rows * cols));
        std::vector<int8_t> input(static_cast<std::size_t>(m * cols));
        for (int8_t& w : weight) w = static_cast<int8_t>(value(generator));
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
        std::vector<int32_t> sums(static_cast<std::size_t>(m * rows), -1);
        vnni_gemm(activations.data(), m, packed, sums.data());
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < rows; ++j) {
            int32_t expected = 0;
            for (int64_t k = 0; k < cols; ++k) {
              expected += input[static_cast<std::size_t>(i * cols + k)] *
                          weight[static_cast<std::size_t>(j * cols + k)];
            }
            ASSERT_EQ(sums[static_cast<std::size_t>(i * rows + j)], expected)
                << "m " << m << ", rows " << rows << ", cols " << cols << " at " << i << ", " << j;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace nmt::model
