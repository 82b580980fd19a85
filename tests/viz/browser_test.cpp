// Renders the viz pages in Debian's headless Chromium: the screenshot must show a picture and the
// DOM, after the scripts ran, must hold every token. Label `browser` (ctest -LE browser skips
// them); they skip when /usr/bin/chromium is absent.
#include <gtest/gtest.h>

#include <string>

#include "example_pictures.h"
#include "nmt/viz/attention_page.h"
#include "nmt/viz/report_page.h"
#include "screenshot.h"
#include "test_utils.h"

namespace nmt::viz {
namespace {

using nmt::testing::count;
using nmt::testing::expect_picture;
using nmt::testing::rendered_dom;
using nmt::testing::ScratchDir;

TEST(AttentionPageBrowserTest, ShowsTheHeatMapWithEveryToken) {
  if (!nmt::testing::has_chromium())
    GTEST_SKIP() << "no " << nmt::testing::kChromium << ": apt-get install chromium";
  ScratchDir scratch;
  const AttentionPicture picture = nmt::testing::example_picture();
  const std::string page = scratch.write("attention.html", render_attention_html(picture));

  expect_picture(scratch, page, /*min_non_white_share=*/0.05, /*min_colourful_share=*/0.03,
                 "attention");

  const std::string dom = rendered_dom(scratch, page, "attention");
  // The script drew the default view: cross-attention, last layer, average over heads, with the
  // tokens as SVG labels (the static token list uses <span>, not <text>).
  const std::size_t t = picture.target_tokens.size(), s = picture.source_tokens.size();
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "no DOM";
  EXPECT_EQ(count(dom, "class=\"cell\""), t * s);
  for (const auto* tokens : {&picture.source_tokens, &picture.target_tokens}) {
    for (const std::string& token : *tokens) {
      EXPECT_NE(dom.find(">" + nmt::testing::dom_text(token) + "</text>"), std::string::npos)
          << token;
    }
  }
  EXPECT_NE(dom.find("average over 2 heads"), std::string::npos);
  EXPECT_NE(dom.find("2 of 2"), std::string::npos) << "the last layer is shown first";
  EXPECT_EQ(count(dom, "<button type=\"button\" class=\"thumb"), 3u)
      << "the average and both heads";

  // The vertical axis title fits above the map's top edge even for a short sentence (it used to
  // lose its first letter: "arget positions").
  const std::size_t title = dom.find("positions (attending)</text>");
  const std::size_t transform = dom.rfind("translate(14,", title);
  ASSERT_NE(transform, std::string::npos);
  const double centre = std::stod(dom.substr(transform + 13));
  const double half_length = std::string("Target positions (attending)").size() * 12 * 0.6 / 2;
  EXPECT_GE(centre, half_length) << "the title's first letters are cut off";
}

TEST(ReportPageBrowserTest, ShowsTheCharts) {
  if (!nmt::testing::has_chromium())
    GTEST_SKIP() << "no " << nmt::testing::kChromium << ": apt-get install chromium";
  ScratchDir scratch;
  const ReportInput input{"runs/example", nmt::testing::example_config(),
                          nmt::testing::example_records()};
  const std::string page = scratch.write("report.html", render_report_html(input));

  expect_picture(scratch, page, /*min_non_white_share=*/0.02, /*min_colourful_share=*/0.002,
                 "report");

  const std::string dom = rendered_dom(scratch, page, "report");
  EXPECT_EQ(count(dom, "<svg"), 3u) << "loss against steps and against time, BLEU and chrF";
  EXPECT_NE(dom.find("BLEU and chrF against steps"), std::string::npos);
  EXPECT_NE(dom.find("Loss against steps"), std::string::npos);
  EXPECT_NE(dom.find("inverse_sqrt"), std::string::npos);
}

}  // namespace
}  // namespace nmt::viz
