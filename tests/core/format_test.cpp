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

TEST(FormatTest, DurationsReadHoursMinutesAndSecondsAndWriteBack) {
  EXPECT_EQ(parse_duration("90s"), 90.0);
  EXPECT_EQ(parse_duration("40m"), 2400.0);
  EXPECT_EQ(parse_duration("2h"), 7200.0);
  EXPECT_EQ(parse_duration("1h30m"), 5400.0);
  EXPECT_EQ(parse_duration("1h2m3s"), 3723.0);
  EXPECT_EQ(parse_duration("1.5h"), 5400.0);
  EXPECT_EQ(parse_duration("2.5s"), 2.5);
  EXPECT_EQ(parse_duration("0"), 0.0);
  EXPECT_EQ(parse_duration(""), 0.0);
  EXPECT_EQ(parse_duration("0s"), 0.0);
  for (const char* bad : {"90", "1h30", "30m1h", "1h1h", "m", "-5m", "1e3s", "5 m", " 5m", "5min",
                          "inf s", "1d", "5M"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
  EXPECT_EQ(duration_text(0), "0");
  EXPECT_EQ(duration_text(90), "1m30s");
  EXPECT_EQ(duration_text(2400), "40m");
  EXPECT_EQ(duration_text(5400), "1h30m");
  EXPECT_EQ(duration_text(7200), "2h");
  EXPECT_EQ(duration_text(3723), "1h2m3s");
  EXPECT_EQ(duration_text(2.5), "2.5s");
  for (const double seconds : {1.0, 59.5, 61.25, 3600.0, 86400.0, 100000.75}) {
    EXPECT_EQ(parse_duration(duration_text(seconds)), seconds) << duration_text(seconds);
  }
  // To the millisecond, so that text read back writes the same text.
  EXPECT_EQ(duration_text(59.9996), "1m");
  EXPECT_EQ(duration_text(3600.0001), "1h");
  EXPECT_EQ(duration_text(0.0004), "0");
  for (const char* text : {"59.9996s", "1h0.00049s", "0.0015s", "2h59m59.9999s", "1.23456789s"}) {
    const std::string written = duration_text(*parse_duration(text));
    EXPECT_EQ(duration_text(*parse_duration(written)), written) << text;
  }
}

}  // namespace
}  // namespace nmt
