#include "nmt/model/dropout.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace nmt::model {
namespace {

// Kept elements are x / (1 - p), the others 0, and the kept fraction is 1 - p within five
// standard deviations, in each half of the elements (a mask whose two halves of a hash were
// correlated, or an off-by-one in the pairing, shows there).
TEST(DropoutTest, KeepsOneMinusPOfTheElementsScaledAndZeroesTheRest) {
  torch::manual_seed(11);
  const auto x = torch::rand({1000, 1001}) + 1.0;  // odd count: the last pair has one element
  for (const double p : {0.1, 0.3}) {
    const auto y = inverted_dropout(x, p, /*training=*/true);
    const auto kept = y.ne(0);
    EXPECT_TRUE(torch::allclose(y.masked_select(kept), x.masked_select(kept) / (1.0 - p), 1e-6));
    const double n = static_cast<double>(x.numel()) / 2.0;
    const double tolerance = 5.0 * std::sqrt(p * (1.0 - p) / n);
    const auto flat = kept.flatten().to(torch::kDouble);
    const auto even = flat.slice(0, 0, flat.size(0), 2).mean().item<double>();
    const auto odd = flat.slice(0, 1, flat.size(0), 2).mean().item<double>();
    EXPECT_NEAR(even, 1.0 - p, tolerance) << "p " << p;
    EXPECT_NEAR(odd, 1.0 - p, tolerance) << "p " << p;
    EXPECT_EQ(y.sizes(), x.sizes());
  }
}

TEST(DropoutTest, TheSameSeedGivesTheSameMaskWhateverTheThreadCount) {
  const auto x = torch::ones({300, 257});
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  torch::manual_seed(5);
  const auto one_thread = inverted_dropout(x, 0.2, true);
  const auto next_call = inverted_dropout(x, 0.2, true);
  at::set_num_threads(2);
  torch::manual_seed(5);
  const auto two_threads = inverted_dropout(x, 0.2, true);
  torch::manual_seed(6);
  const auto other_seed = inverted_dropout(x, 0.2, true);
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(one_thread, two_threads));
  EXPECT_FALSE(torch::equal(one_thread, next_call)) << "each call draws a new seed";
  EXPECT_FALSE(torch::equal(one_thread, other_seed));
}

TEST(DropoutTest, TheGradientPassesThroughTheKeptElementsOnly) {
  torch::manual_seed(2);
  const auto x = torch::randn({64, 33}, torch::requires_grad());
  const auto y = inverted_dropout(x, 0.25, true);
  y.sum().backward();
  EXPECT_TRUE(torch::allclose(x.grad(), y.ne(0).to(torch::kFloat) / 0.75, 1e-6));
}

TEST(DropoutTest, Bf16InputsGiveABf16OutputWithTheRoundedScale) {
  torch::manual_seed(3);
  const auto x = torch::ones({128, 64}, torch::kBFloat16);
  const auto y = inverted_dropout(x, 0.1, true);
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  const auto values = std::get<0>(at::_unique(y.to(torch::kFloat)));
  ASSERT_EQ(values.numel(), 2);
  EXPECT_EQ(values[0].item<float>(), 0.0f);
  EXPECT_EQ(values[1].item<float>(), static_cast<float>(c10::BFloat16(1.0f / 0.9f)));
}

TEST(DropoutTest, OutsideTrainingOrWithPZeroTheInputComesBackUntouched) {
  const auto x = torch::randn({4, 5});
  EXPECT_TRUE(inverted_dropout(x, 0.5, /*training=*/false).is_same(x));
  EXPECT_TRUE(inverted_dropout(x, 0.0, /*training=*/true).is_same(x));
}

}  // namespace
}  // namespace nmt::model
