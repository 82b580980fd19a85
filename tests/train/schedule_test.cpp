#include "nmt/train/schedule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nmt::train {
namespace {

TEST(LearningRateTest, ConstantIsConstant) {
  TrainOptions options;
  EXPECT_DOUBLE_EQ(learning_rate(options, 1), 5e-4);
  EXPECT_DOUBLE_EQ(learning_rate(options, 100000), 5e-4);
}

TEST(LearningRateTest, InverseSqrtWarmsUpLinearlyThenDecays) {
  TrainOptions options;
  options.schedule = Schedule::kInverseSqrt;
  options.lr = 1e-3;
  options.warmup = 100;
  EXPECT_DOUBLE_EQ(learning_rate(options, 1), 1e-5);
  EXPECT_DOUBLE_EQ(learning_rate(options, 50), 5e-4);
  EXPECT_DOUBLE_EQ(learning_rate(options, 100), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate(options, 400), 5e-4);
  EXPECT_NEAR(learning_rate(options, 10000), 1e-4, 1e-12);
}

}  // namespace
}  // namespace nmt::train
