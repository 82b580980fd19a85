#include "nmt/train/loss.h"

#include <gtest/gtest.h>

#include <cmath>

#include "torch_test_utils.h"

namespace nmt::train {
namespace {

// Worked by hand: z = [0, 0, ln 2] gives p = [1/4, 1/4, 1/2]. For target 2 and eps = 0.1:
// nll = ln 2 = 0.693147, smooth = -(ln 1/4 + ln 1/4 + ln 1/2) / 3 = 5 ln 2 / 3 = 1.155245,
// loss = 0.9 * 0.693147 + 0.1 * 1.155245 = 0.739357.
TEST(LabelSmoothedCrossEntropyTest, MatchesAHandWorkedExample) {
  const auto logits = torch::tensor({0.0, 0.0, std::log(2.0)}, torch::kFloat).view({1, 3});
  const auto loss = label_smoothed_cross_entropy(logits, torch::tensor({2}, torch::kLong), 0.1);
  EXPECT_NEAR(loss.sum.item<double>(), 0.9 * std::log(2.0) + 0.1 * 5.0 * std::log(2.0) / 3.0, 1e-6);
  EXPECT_NEAR(loss.sum.item<double>(), 0.739357, 1e-6);
  EXPECT_EQ(loss.tokens.item<int64_t>(), 1);
}

// Second row targets <PAD> (id 0) and is ignored, as with CrossEntropyLoss(ignore_index=0):
// the mean is over the one remaining token. Target 1 with eps = 0.3: nll = ln 4, smooth = 5 ln 2
// / 3.
TEST(LabelSmoothedCrossEntropyTest, IgnoresPaddingTargets) {
  const auto logits =
      torch::tensor({0.0, 0.0, std::log(2.0), 5.0, -1.0, 2.0}, torch::kFloat).view({2, 3});
  const auto loss = label_smoothed_cross_entropy(logits, torch::tensor({1, 0}, torch::kLong), 0.3);
  EXPECT_EQ(loss.tokens.item<int64_t>(), 1);
  EXPECT_NEAR(loss.sum.item<double>(), 0.7 * std::log(4.0) + 0.3 * 5.0 * std::log(2.0) / 3.0, 1e-6);
}

TEST(LabelSmoothedCrossEntropyTest, WithoutSmoothingIsPlainCrossEntropy) {
  torch::manual_seed(4);
  const auto logits = torch::randn({6, 9});
  const auto targets = torch::tensor({1, 2, 3, 0, 5, 8}, torch::kLong);
  const auto ours = label_smoothed_cross_entropy(logits, targets, 0.0);
  const auto reference =
      torch::nll_loss(torch::log_softmax(logits, 1), targets, {}, at::Reduction::Sum, 0);
  EXPECT_NEAR(ours.sum.item<double>(), reference.item<double>(), 1e-5);
}

TEST(LabelSmoothedCrossEntropyTest, GradientMatchesAutogradOfTheDefinition) {
  torch::manual_seed(5);
  const auto base = torch::randn({5, 7});
  const auto targets = torch::tensor({3, 0, 6, 1, 2}, torch::kLong);
  const double eps = 0.2;
  auto ours = base.clone().requires_grad_(true);
  const auto loss = label_smoothed_cross_entropy(ours, targets, eps);
  (loss.sum / loss.tokens).backward();

  auto reference = base.clone().requires_grad_(true);
  const auto logp = torch::log_softmax(reference, 1);
  const auto real = targets.ne(0).to(torch::kFloat);
  const auto per_token =
      -(1 - eps) * logp.gather(1, targets.unsqueeze(1)).squeeze(1) - eps * logp.mean(1);
  ((per_token * real).sum() / real.sum()).backward();
  EXPECT_TRUE(testing::all_close(ours.grad(), reference.grad(), 1e-6));
  EXPECT_EQ(ours.grad()[1].abs().sum().item<float>(), 0.0f);
}

}  // namespace
}  // namespace nmt::train
