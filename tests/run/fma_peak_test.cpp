#include "nmt/run/fma_peak.h"

#include <gtest/gtest.h>

#include "nmt/cpu_features.h"

namespace nmt::run {
namespace {

TEST(FmaPeakTest, MeasuresAtTheTierOfNmtsLoopsOnTheThreadsAsked) {
  const std::optional<FmaPeak> peak = measure_fma_peak(2);
  if (vector_loop_tier() == CpuTier::kBaseline) {
    EXPECT_FALSE(peak.has_value()) << "no vector FMA at the baseline tier";
    return;
  }
  ASSERT_TRUE(peak.has_value());
  EXPECT_EQ(peak->tier, tier_name(vector_loop_tier()));
  EXPECT_EQ(peak->threads, 2);
  EXPECT_GT(peak->flops_per_s, 0.0);
}

}  // namespace
}  // namespace nmt::run
