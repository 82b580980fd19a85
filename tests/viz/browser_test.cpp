// Renders the viz pages in Debian's headless Chromium: the screenshot must show a picture and the DOM,
// after the scripts ran, must hold every token. Label `browser` (ctest -LE browser skips them); they
// skip when /usr/bin/chromium is absent.
#include <gtest/gtest.h>

#include <string>

#include "example_pictures.h"
#include "nmt/viz/attention_page.h"
#include "nmt/viz/report_page.h"
#include "screenshot.h"
#include "test_utils.h"

namespace nmt::viz {
namespace {

using nmt::testing::ScratchDir;

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Takes the screenshot, keeps a copy in $NMT_SCREENSHOT_DIR when set, and checks it is not blank.
void expect_picture(const ScratchDir& scratch,
                    const std::string& page,
                    double min_non_white_share,
                    double min_colourful_share,
                    const std::string& name) {
  const std::string png = scratch.file(name + ".png");
  ASSERT_EQ(nmt::testing::run_chromium(scratch, name + "-shot", "--screenshot='" + png + "'", page), 0)
      << nmt::testing::read_file(scratch.file(name + "-shot.log"));
  ASSERT_TRUE(std::filesystem::exists(png)) << nmt::testing::read_file(scratch.file(name + "-shot.log"));
  if (const char* keep = std::getenv("NMT_SCREENSHOT_DIR")) {
    std::filesystem::copy_file(png, std::string(keep) + "/" + name + ".png",
                               std::filesystem::copy_options::overwrite_existing);
  }
#ifdef NMT_HAVE_PNG
  const nmt::testing::ScreenshotStats stats = nmt::testing::measure_png(png);
  ASSERT_TRUE(stats.is_read) << "cannot decode " << png;
  const std::string measured = name + ".png: " + std::to_string(stats.non_white_share * 100) +
                               "% not white, " + std::to_string(stats.colourful_share * 100) +
                               "% coloured, " + std::to_string(stats.distinct_colours) + " colours";
  EXPECT_EQ(stats.width, 1280);
  EXPECT_EQ(stats.height, 1000);
  EXPECT_GT(stats.non_white_share, min_non_white_share) << "the screenshot is almost blank: " << measured;
  EXPECT_GT(stats.colourful_share, min_colourful_share)
      << "the screenshot shows hardly any colour: " << measured;
  EXPECT_GT(stats.distinct_colours, 16u) << "the screenshot has too few colours: " << measured;
#else
  (void)min_non_white_share;
  (void)min_colourful_share;
  EXPECT_GT(std::filesystem::file_size(png), 10000u) << "built without libpng: only the size is checked";
#endif
}

// The DOM after the page's scripts ran, without the <script> elements (whose source would match too).
std::string rendered_dom(const ScratchDir& scratch, const std::string& page, const std::string& name) {
  const int status = nmt::testing::run_chromium(scratch, name + "-dom", "--dump-dom", page);
  EXPECT_EQ(status, 0) << nmt::testing::read_file(scratch.file(name + "-dom.log"));
  std::string dom = nmt::testing::read_file(scratch.file(name + "-dom.out"));
  for (std::size_t at = dom.find("<script"); at != std::string::npos; at = dom.find("<script", at)) {
    const std::size_t end = dom.find("</script>", at);
    dom.erase(at, end == std::string::npos ? std::string::npos : end + 9 - at);
  }
  return dom;
}

TEST(AttentionPageBrowserTest, ShowsTheHeatMapWithEveryToken) {
  if (!nmt::testing::has_chromium())
    GTEST_SKIP() << "no " << nmt::testing::kChromium << ": apt-get install chromium";
  ScratchDir scratch;
  const AttentionPicture picture = nmt::testing::example_picture();
  const std::string page = scratch.write("attention.html", render_attention_html(picture));

  expect_picture(scratch, page, /*min_non_white_share=*/0.05, /*min_colourful_share=*/0.03, "attention");

  const std::string dom = rendered_dom(scratch, page, "attention");
  // The script drew the default view: cross-attention, last layer, average over heads, with the tokens
  // as SVG labels (the static token list uses <span>, not <text>).
  const std::size_t t = picture.target_tokens.size(), s = picture.source_tokens.size();
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "no DOM";
  EXPECT_EQ(count(dom, "class=\"cell\""), t * s);
  for (const auto* tokens : {&picture.source_tokens, &picture.target_tokens}) {
    for (const std::string& token : *tokens) {
      EXPECT_NE(dom.find(">" + nmt::testing::dom_text(token) + "</text>"), std::string::npos) << token;
    }
  }
  EXPECT_NE(dom.find("average over 2 heads"), std::string::npos);
  EXPECT_NE(dom.find("2 of 2"), std::string::npos) << "the last layer is shown first";
  EXPECT_EQ(count(dom, "<button type=\"button\" class=\"thumb"), 3u) << "the average and both heads";
}

TEST(ReportPageBrowserTest, ShowsTheCharts) {
  if (!nmt::testing::has_chromium())
    GTEST_SKIP() << "no " << nmt::testing::kChromium << ": apt-get install chromium";
  ScratchDir scratch;
  const ReportInput input{"runs/example",
                          nmt::testing::example_config(),
                          nmt::testing::example_records(),
                          {{"bleu", 21.5}, {"chrf", 44.2}}};
  const std::string page = scratch.write("report.html", render_report_html(input));

  expect_picture(scratch, page, /*min_non_white_share=*/0.02, /*min_colourful_share=*/0.002, "report");

  const std::string dom = rendered_dom(scratch, page, "report");
  EXPECT_EQ(count(dom, "<svg"), 2u) << "loss against steps and against time";
  EXPECT_NE(dom.find("Loss against steps"), std::string::npos);
  EXPECT_NE(dom.find("inverse_sqrt"), std::string::npos);
}

}  // namespace
}  // namespace nmt::viz
