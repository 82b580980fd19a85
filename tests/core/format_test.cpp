#include "nmt/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace nmt {
namespace {

TEST(FormatTest, NumbersHaveNoTrailingZerosAndNoLocale) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1.05), "1.05");
  EXPECT_EQ(format_number(4000.0), "4000");
  EXPECT_EQ(format_number(3.14159, 3), "3.14");
  EXPECT_EQ(format_number(2.5e-7), "2.5e-07");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_number(std::nan("")), "nan");
}

TEST(FormatTest, ClockAndDuration) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(245), "4:05");
  EXPECT_EQ(format_clock(3723), "1:02:03");
  EXPECT_EQ(format_clock(-5), "0:00");
  EXPECT_EQ(format_duration(42.5), "42.5 s");
  EXPECT_EQ(format_duration(245), "4 min 5 s");
  EXPECT_EQ(format_duration(3723), "1 h 2 min");
  EXPECT_EQ(format_duration(std::nan("")), "n/a");
}

}  // namespace
}  // namespace nmt
