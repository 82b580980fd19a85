#include "nmt/model/attention.h"

#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <string>

#include "model/batched_products.h"
#include "torch_test_utils.h"

namespace nmt::model {
namespace {

TEST(ScaledDotProductTest, MatchesAHandComputedExample) {
  // One head, d = 2: scores = [1, 0] / sqrt(2); softmax = [e^a / (e^a + 1), 1 / (e^a + 1)], a =
  // 1/sqrt(2).
  const auto q = torch::tensor({1.0f, 0.0f}).view({1, 1, 1, 2});
  const auto k = torch::tensor({1.0f, 0.0f, 0.0f, 1.0f}).view({1, 1, 2, 2});
  const auto v = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({1, 1, 2, 2});
  const AttentionOutput result =
      scaled_dot_product(q, k, v, torch::Tensor(), /*need_weights=*/true);
  const double a = 1.0 / std::sqrt(2.0);
  const double p0 = std::exp(a) / (std::exp(a) + 1.0);
  EXPECT_NEAR(result.weights[0][0][0][0].item<double>(), p0, 1e-6);
  EXPECT_NEAR(result.weights[0][0][0][1].item<double>(), 1.0 - p0, 1e-6);
  EXPECT_NEAR(result.output[0][0][0][0].item<double>(), p0 * 1 + (1 - p0) * 3, 1e-5);
  EXPECT_NEAR(result.output[0][0][0][1].item<double>(), p0 * 2 + (1 - p0) * 4, 1e-5);
}

TEST(ScaledDotProductTest, MaskedKeysGetNoWeight) {
  const auto q = torch::randn({1, 1, 1, 4});
  const auto k = torch::randn({1, 1, 3, 4});
  const auto v = torch::randn({1, 1, 3, 4});
  const auto mask = torch::tensor({true, false, true}).view({1, 1, 1, 3});
  const AttentionOutput result = scaled_dot_product(q, k, v, mask, true);
  EXPECT_EQ(result.weights[0][0][0][1].item<float>(), 0.0f);
  EXPECT_NEAR(result.weights.sum().item<double>(), 1.0, 1e-6);
}

TEST(ScaledDotProductTest, FusedAndExplicitPathsAgree) {
  torch::manual_seed(3);
  const auto q = torch::randn({2, 4, 5, 8});
  const auto k = torch::randn({2, 4, 7, 8});
  const auto v = torch::randn({2, 4, 7, 8});
  const auto mask =
      torch::rand({2, 1, 1, 7}).gt(0.3).logical_or(torch::arange(7).view({1, 1, 1, 7}).eq(0));
  const auto explicit_path = scaled_dot_product(q, k, v, mask, /*need_weights=*/true);
  torch::NoGradGuard decoding;
  const auto fast =
      scaled_dot_product(q, k, v, mask, /*need_weights=*/false);  // fused on LibTorch >= 2
  EXPECT_FALSE(fast.weights.defined());
  EXPECT_TRUE(testing::all_close(fast.output, explicit_path.output, 1e-5));
}

// LibTorch 2.x's fused kernel backward on the CPU (ScaledDotProductFlashAttentionForCpuBackward0)
// made bf16 training twice as slow as 1.13: training on the CPU records the explicit operators.
TEST(ScaledDotProductTest, CpuTrainingRecordsTheExplicitOperatorsNotTheFusedKernel) {
  torch::manual_seed(4);
  const auto q = torch::randn({2, 4, 5, 8}, torch::requires_grad());
  const auto k = torch::randn({2, 4, 7, 8}, torch::requires_grad());
  const auto v = torch::randn({2, 4, 7, 8}, torch::requires_grad());
  const auto output = scaled_dot_product(q, k, v, {}, /*need_weights=*/false).output;
  ASSERT_TRUE(output.grad_fn());
  EXPECT_EQ(output.grad_fn()->name().find("Attention"), std::string::npos)
      << output.grad_fn()->name();
}

TEST(MasksTest, PaddingAndCausalMasksFollowTheNotebook) {
  const auto ids = torch::tensor({5, 6, 0, 0}, torch::kLong).view({1, 4});
  EXPECT_TRUE(torch::equal(padding_mask(ids).view({4}), torch::tensor({true, true, false, false})));
  EXPECT_EQ(padding_mask(ids).sizes(), (std::vector<int64_t>{1, 1, 1, 4}));
  const auto causal = causal_mask(3, torch::kCPU);
  EXPECT_TRUE(torch::equal(
      causal,
      torch::tensor({true, false, false, true, true, false, true, true, true}).view({3, 3})));
}

TEST(MultiHeadAttentionTest, WeightsHaveOneRowPerQueryThatSumsToOne) {
  torch::manual_seed(1);
  MultiHeadAttention attention(16, 4, /*is_self=*/false);
  const auto x = torch::randn({2, 3, 16});
  const auto memory = torch::randn({2, 5, 16});
  const auto mask = torch::ones({2, 1, 1, 5}, torch::kBool);
  const AttentionOutput result = attention->cross_attend(x, memory, mask, true);
  EXPECT_EQ(result.output.sizes(), (std::vector<int64_t>{2, 3, 16}));
  EXPECT_EQ(result.weights.sizes(), (std::vector<int64_t>{2, 4, 3, 5}));
  EXPECT_TRUE(testing::all_close(result.weights.sum(-1), torch::ones({2, 4, 3})));
}

TEST(MultiHeadAttentionTest, IncrementalSelfAttentionMatchesTheCausalFullPass) {
  torch::manual_seed(2);
  MultiHeadAttention attention(16, 4, /*is_self=*/true);
  const auto x = torch::randn({2, 4, 16});
  const auto full = attention->self_attend(x, causal_mask(4, torch::kCPU)).output;
  KeyValue cache;
  for (int64_t t = 0; t < 4; ++t) {
    const auto step = attention->self_attend_step(x.narrow(1, t, 1), cache).output;
    EXPECT_TRUE(testing::all_close(step, full.narrow(1, t, 1), 1e-5)) << "position " << t;
  }
  EXPECT_EQ(cache.keys.size(2), 4);
}

// The direct BLAS path gives at::matmul's products and gradients, from operands laid out as
// attention's are: heads split from a wider projection (row-major, strided), keys transposed
// (column-major), and contiguous ones; every sentence and head its own values.
TEST(BatchedProductTest, GivesMatmulsProductsAndGradientsForAttentionsLayouts) {
  if (!batched_product_calls_blas()) {
    GTEST_SKIP() << "this build calls at::matmul (LibTorch with MKL, or no CBLAS at build time)";
  }
  torch::manual_seed(11);
  for (const int64_t rows : {1, 5, 17}) {
    // [B, T, 3 * H * Dh] split as the self-attention's in_proj output is: queries and keys.
    const auto projected = torch::randn({2, rows, 3 * 4 * 8}, torch::requires_grad());
    const auto parts = projected.chunk(3, -1);
    const auto split = [&](const torch::Tensor& x) {
      return x.view({2, rows, 4, 8}).transpose(1, 2);
    };
    const torch::Tensor queries = split(parts[0]);
    const torch::Tensor keys_t = split(parts[1]).transpose(-2, -1);
    const auto mixing = torch::randn({2, 4, rows, rows}, torch::requires_grad());
    const torch::Tensor values = split(parts[2]);

    const torch::Tensor scores = batched_product(queries, keys_t);
    const torch::Tensor mixed = batched_product(mixing, values);
    const torch::Tensor expected_scores = torch::matmul(queries, keys_t);
    const torch::Tensor expected_mixed = torch::matmul(mixing, values);
    ASSERT_EQ(scores.sizes(), expected_scores.sizes());
    EXPECT_TRUE(torch::allclose(scores, expected_scores, 1e-5, 1e-5)) << rows;
    EXPECT_TRUE(torch::allclose(mixed, expected_mixed, 1e-5, 1e-5)) << rows;

    const auto weights_a = torch::randn(scores.sizes());
    const auto weights_b = torch::randn(mixed.sizes());
    const auto gradients = torch::autograd::grad(
        {(scores * weights_a).sum() + (mixed * weights_b).sum()}, {projected, mixing});
    const auto expected = torch::autograd::grad(
        {(expected_scores * weights_a).sum() + (expected_mixed * weights_b).sum()},
        {projected, mixing});
    EXPECT_TRUE(torch::allclose(gradients[0], expected[0], 1e-5, 1e-5)) << rows;
    EXPECT_TRUE(torch::allclose(gradients[1], expected[1], 1e-5, 1e-5)) << rows;
  }
}

}  // namespace
}  // namespace nmt::model
