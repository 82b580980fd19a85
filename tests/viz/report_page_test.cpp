#include "nmt/viz/report_page.h"

#include <gtest/gtest.h>

#include <string>

#include "example_pictures.h"

namespace nmt::viz {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ReportInput example_input() {
  return {"runs/2024 <en&es>",
          nmt::testing::example_config(),
          nmt::testing::example_records(),
          {{"bleu", 21.5}, {"chrf", 44.2}}};
}

TEST(ReportHtmlTest, HasChartsAndTheConfigValues) {
  const std::string page = render_report_html(example_input());
  EXPECT_TRUE(contains(page, "<svg"));
  EXPECT_TRUE(contains(page, "Loss against steps"));
  EXPECT_TRUE(contains(page, "Loss against training time"));
  EXPECT_TRUE(contains(page, "BLEU 21.5 at step 200"));
  EXPECT_FALSE(contains(page, "BLEU against steps")) << "one BLEU point is no curve";
  EXPECT_TRUE(contains(page, "<polyline"));
  for (const char* value :
       {"data/en&amp;es.tsv", "256", "inverse_sqrt", "0.0005", "pre", "d_model", "max_words"}) {
    EXPECT_TRUE(contains(page, value)) << value;
  }
  EXPECT_TRUE(contains(page, "runs/2024 &lt;en&amp;es&gt;"));
  EXPECT_FALSE(contains(page, "<en&es>"));
  EXPECT_TRUE(contains(page, "21.5"));
  EXPECT_TRUE(contains(page, "44.2"));
  EXPECT_TRUE(contains(page, "Epochs"));
}

TEST(ReportHtmlTest, DrawsBleuWhenThereAreTwoPointsOrMore) {
  ReportInput input = example_input();
  input.records.push_back({{"event", "eval"}, {"bleu", 23.0}, {"step", 300}});
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "BLEU against steps"));
  EXPECT_FALSE(contains(page, "at step"));
}

TEST(ReportHtmlTest, LoadsNothingFromOutside) {
  const std::string page = render_report_html(example_input());
  for (const char* forbidden : {"http://", "https://", "src=", "href=", "url(", "@import", "<script"}) {
    EXPECT_FALSE(contains(page, forbidden)) << forbidden;
  }
}

TEST(ReportHtmlTest, ListsConfigSectionsInPipelineOrder) {
  ReportInput input = example_input();
  input.config["decode"] = {{"beam_size", 5}};
  input.config["extra"] = {{"note", "x"}};
  const std::string page = render_report_html(input);
  const std::size_t data = page.find("<h3>data</h3>"), model = page.find("<h3>model</h3>");
  const std::size_t train = page.find("<h3>train</h3>"), decode = page.find("<h3>decode</h3>");
  const std::size_t extra = page.find("<h3>extra</h3>");
  ASSERT_NE(extra, std::string::npos);
  EXPECT_LT(data, model);
  EXPECT_LT(model, train);
  EXPECT_LT(train, decode);
  EXPECT_LT(decode, extra);
}

TEST(ReportHtmlTest, SaysSoWhenThereAreNoMetrics) {
  ReportInput input = example_input();
  input.records.clear();
  input.scores = nullptr;
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No metrics yet"));
  EXPECT_FALSE(contains(page, "<svg"));
  EXPECT_FALSE(contains(page, "Final scores"));
  EXPECT_TRUE(contains(page, "inverse_sqrt"));
}

TEST(ReportHtmlTest, SaysSoWhenNoLossWasRecorded) {
  ReportInput input = example_input();
  input.records = {{{"event", "start"}, {"step", 0}}};
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No loss recorded yet"));
  EXPECT_FALSE(contains(page, "<svg"));
}

TEST(ReportHtmlTest, WorksWithoutConfigAndWithOddScores) {
  ReportInput input = example_input();
  input.config = nullptr;
  input.scores = {{"bleu", 12.0}, {"split", "<test>"}, {"signature", {{"tok", "13a"}}}};
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No configuration"));
  EXPECT_TRUE(contains(page, "&lt;test&gt;"));
  EXPECT_TRUE(contains(page, "signature.tok"));
}

}  // namespace
}  // namespace nmt::viz
