#include "nmt/train/adam.h"

#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include <cmath>

#include "torch_test_utils.h"

namespace nmt::train {
namespace {

TEST(AdamTest, FirstStepMatchesTheFormula) {
  // After one step m = (1-b1) g, v = (1-b2) g^2, so the update is lr * g / (|g| + eps') = lr *
  // sign(g).
  auto p = torch::tensor({1.0f, -2.0f, 3.0f}).requires_grad_(true);
  Adam adam({p}, AdamOptions{});
  p.mutable_grad() = torch::tensor({0.5f, -4.0f, 0.0f});
  adam.step(0.1);
  EXPECT_NEAR(p[0].item<float>(), 0.9f, 1e-6);
  EXPECT_NEAR(p[1].item<float>(), -1.9f, 1e-6);
  EXPECT_NEAR(p[2].item<float>(), 3.0f, 1e-6);
  EXPECT_EQ(adam.steps(), 1);
}

TEST(AdamTest, MatchesLibTorchAdamOverManySteps) {
  torch::manual_seed(9);
  const auto start = torch::randn({1000});
  auto ours = start.clone().requires_grad_(true);
  auto theirs = start.clone().requires_grad_(true);
  Adam adam({ours}, AdamOptions{0.9, 0.98, 1e-9});
  torch::optim::Adam reference({theirs},
                               torch::optim::AdamOptions(3e-3).betas({0.9, 0.98}).eps(1e-9));
  for (int step = 0; step < 50; ++step) {
    const auto gradient = torch::randn({1000}) * (step + 1);
    ours.mutable_grad() = gradient.clone();
    theirs.mutable_grad() = gradient.clone();
    adam.step(3e-3);
    reference.step();
  }
  EXPECT_TRUE(testing::all_close(ours, theirs, 1e-5));
}

TEST(AdamTest, WeightDecayMatchesLibTorchAdamW) {
  torch::manual_seed(10);
  const auto start = torch::randn({1000});
  auto ours = start.clone().requires_grad_(true);
  auto theirs = start.clone().requires_grad_(true);
  Adam adam({ours}, AdamOptions{0.9, 0.98, 1e-9, 0.1});
  torch::optim::AdamW reference(
      {theirs}, torch::optim::AdamWOptions(3e-3).betas({0.9, 0.98}).eps(1e-9).weight_decay(0.1));
  for (int step = 0; step < 50; ++step) {
    const auto gradient = torch::randn({1000});
    ours.mutable_grad() = gradient.clone();
    theirs.mutable_grad() = gradient.clone();
    adam.step(3e-3);
    reference.step();
  }
  EXPECT_TRUE(testing::all_close(ours, theirs, 1e-5));
  EXPECT_FALSE(testing::all_close(ours, start, 1e-2));
}

TEST(AdamTest, ZeroGradDropsGradientsAndSkipsParametersWithout) {
  auto a = torch::ones({2}).requires_grad_(true);
  auto b = torch::ones({2}).requires_grad_(true);
  Adam adam({a, b}, AdamOptions{});
  a.mutable_grad() = torch::ones({2});
  adam.step(0.5);
  EXPECT_TRUE(torch::equal(b, torch::ones({2})));
  adam.zero_grad();
  EXPECT_FALSE(a.grad().defined());
}

}  // namespace
}  // namespace nmt::train
