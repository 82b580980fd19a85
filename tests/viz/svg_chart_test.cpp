#include "viz/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace nmt::viz {
namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(NiceTicksTest, CoversTheRangeWithRoundSteps) {
  EXPECT_EQ(nice_ticks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(1.3, 9.2, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(10, 200, 6), (std::vector<double>{0, 50, 100, 150, 200}));
  const std::vector<double> small = nice_ticks(2.35, 2.78, 5);
  EXPECT_LE(small.front(), 2.35);
  EXPECT_GE(small.back(), 2.78);
  EXPECT_NEAR(small[1] - small[0], 0.1, 1e-12);
}

TEST(NiceTicksTest, WidensASingleValue) {
  const std::vector<double> ticks = nice_ticks(5, 5, 5);
  ASSERT_GE(ticks.size(), 2u);
  EXPECT_LT(ticks.front(), 5);
  EXPECT_GT(ticks.back(), 5);
  EXPECT_EQ(nice_ticks(NAN, 1, 5), (std::vector<double>{0, 1}));
}

TEST(LineChartTest, DrawsAxesTicksLegendAndLines) {
  const std::string svg =
      render_line_chart({{"train <loss>", "#1f6feb", {0, 10, 20, 30}, {5, 4, 3, 2.5}},
                         {"valid loss", "#e8590c", {10, 30}, {4.2, 3}}},
                        {"Loss & steps", "step", "loss"});
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("Loss &amp; steps"), std::string::npos);
  EXPECT_NE(svg.find("train &lt;loss&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<loss>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 6u);
  EXPECT_NE(svg.find(">step<"), std::string::npos);
  EXPECT_NE(svg.find(">loss<"), std::string::npos);
  EXPECT_NE(svg.find(">30<"), std::string::npos) << "an x tick label";
  EXPECT_NE(svg.find(">2.5<"), std::string::npos) << "a y tick label";
}

TEST(LineChartTest, BreaksTheLineWhereStepsGoBack) {
  // A run resumed from step 20 logs steps 30 and 40 again: both pieces are drawn, no point is lost.
  const std::string svg = render_line_chart(
      {{"train loss", "#000", {10, 20, 30, 40, 30, 40, 50}, {5, 4, 3, 2, 3.1, 2.1, 1.9}}}, {});
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 7u);
}

TEST(LineChartTest, IsEmptyWithoutFinitePoints) {
  EXPECT_EQ(render_line_chart({}, {}), "");
  EXPECT_EQ(render_line_chart({{"x", "#000", {1}, {NAN}}}, {}), "");
}

}  // namespace
}  // namespace nmt::viz
