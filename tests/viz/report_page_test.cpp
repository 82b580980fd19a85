#include "nmt/viz/report_page.h"

#include <gtest/gtest.h>

#include <string>

#include "example_pictures.h"
#include "test_utils.h"

namespace nmt::viz {
namespace {

using nmt::testing::contains;

ReportInput example_input() {
  return {"runs/2024 <en&es>", nmt::testing::example_config(), nmt::testing::example_records()};
}

TEST(ReportHtmlTest, HasChartsAndTheConfigValues) {
  const std::string page = render_report_html(example_input());
  EXPECT_TRUE(contains(page, "<svg"));
  EXPECT_TRUE(contains(page, "Loss against steps"));
  EXPECT_TRUE(contains(page, "Loss against training time"));
  EXPECT_TRUE(contains(page, "BLEU and chrF against steps"));
  EXPECT_TRUE(contains(page, "valid BLEU</text>")) << "the validation BLEU of both epochs";
  EXPECT_TRUE(contains(page, "valid chrF</text>"));
  EXPECT_FALSE(contains(page, ">BLEU of nmt eval</text>")) << "one evaluation is no curve";
  EXPECT_TRUE(contains(page, "best.pt step (valid loss 2.4)"));
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

TEST(ReportHtmlTest, ListsEveryEvaluationAndSummarisesTheLatest) {
  ReportInput input = example_input();
  EvalRecord valid = nmt::testing::eval_record("valid split of runs/example", 19.25, 40.5);
  valid.checkpoint = "runs/example/averaged.pt";
  valid.decoding = "greedy";
  valid.notebook_form = true;
  valid.loss = 2.75;
  valid.time = 1.795e9;
  input.records.push_back(valid);
  const std::string page = render_report_html(input);
  const std::size_t table = page.find("<h2>Evaluations</h2>");
  ASSERT_NE(table, std::string::npos);
  const std::size_t first = page.find("test split of runs/example", table);
  const std::size_t second = page.find("valid split of runs/example", table);
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second) << "evaluations in the order they were made";
  for (const char* value :
       {"beam 5, length penalty 1", "greedy", "averaged.pt", "2.75", "<td>yes</td>"}) {
    EXPECT_NE(page.find(value, table), std::string::npos) << value;
  }
  const std::size_t summary_end = page.find("<h2>");
  EXPECT_NE(page.rfind("19.25", summary_end), std::string::npos)
      << "the latest BLEU is in the summary";
  EXPECT_EQ(page.rfind("21.5", summary_end), std::string::npos) << "an earlier BLEU is not";
  EXPECT_FALSE(contains(page, "1.795e+09")) << "a record's timestamp is no score";
  EXPECT_FALSE(contains(page, ">BLEU of nmt eval</text>"))
      << "evaluations of the final model are no curve";
}

TEST(ReportHtmlTest, TabulatesEvaluationsBySourceLengthWithEmptyRangesAsEmpty) {
  ReportInput input = example_input();
  EXPECT_FALSE(contains(render_report_html(input), "by source length"))
      << "an evaluation without scores by length adds no table";
  EvalRecord by_length = nmt::testing::eval_record("test split of runs/example", 30.5, 50.25);
  by_length.by_source_length = {{"0-5", 1200, 48.25, 66.5},
                                {"6-10", 300, 31.75, 55.0},
                                {"31+", 0, std::nullopt, std::nullopt}};
  input.records.push_back(by_length);
  const std::string page = render_report_html(input);
  const std::size_t table = page.find("<h2>BLEU / chrF by source length</h2>");
  ASSERT_NE(table, std::string::npos);
  for (const char* value :
       {"<th class=\"num\">0-5 words</th>", "<th class=\"num\">31+ words</th>", "48.25 / 66.5",
        "1200 sentences", "31.75 / 55", "<td class=\"num note\">empty</td>"}) {
    EXPECT_NE(page.find(value, table), std::string::npos) << value;
  }
  EXPECT_EQ(page.find("0 / ", table), std::string::npos) << "an empty range has no score";
}

TEST(ReportHtmlTest, DrawsBleuWhenThereAreTwoPointsOrMore) {
  ReportInput input = example_input();
  input.records.push_back(nmt::testing::train_record(300, 1.6, 270.0));
  input.records.push_back(nmt::testing::eval_record("test split of runs/example", 23.0, 45.0));
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, ">BLEU of nmt eval</text>"));
}

TEST(ReportHtmlTest, DrawsValidationsBetweenEpochsAndWhereBestPtCameFrom) {
  ReportInput input = example_input();
  input.records.clear();
  for (int64_t step = 25; step <= 100; step += 25) {
    input.records.push_back(nmt::testing::train_record(step, 5.0 - step / 50.0, step * 0.5));
    ValidRecord valid;
    valid.epoch = 1;
    valid.step = step;
    valid.train_seconds = step * 0.5;
    valid.valid_loss = 4.0 - step / 100.0;
    valid.valid_ppl = std::exp(valid.valid_loss);
    valid.valid_bleu = step == 75 ? 20.5 : step / 5.0;
    valid.is_best = step == 75;
    input.records.push_back(valid);
  }
  input.records.push_back(
      EndRecord{"finished", "trained 1 epoch", 1, 100, 50.0, std::nullopt, "bleu", 20.5, 75, 0});
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "valid loss</text>")) << "the loss of the validations";
  EXPECT_TRUE(contains(page, "valid BLEU</text>"));
  EXPECT_FALSE(contains(page, "valid chrF</text>")) << "no chrF was recorded";
  EXPECT_TRUE(contains(page, "best.pt step (valid BLEU 20.5)"));
  EXPECT_TRUE(contains(page, ">75<")) << "the step best.pt came from";
  const std::size_t table = page.find("<h2>Validations</h2>");
  ASSERT_NE(table, std::string::npos);
  const std::size_t best = page.find("<td>best</td>", table);
  ASSERT_NE(best, std::string::npos);
  EXPECT_NE(page.rfind(">20.5<", best), std::string::npos) << "step 75's row is marked best";
  EXPECT_EQ(page.find("<th class=\"num\">valid loss</th>", page.find("<h2>Epochs</h2>")),
            std::string::npos)
      << "no empty validation columns in the epochs table";
}

TEST(ReportHtmlTest, LoadsNothingFromOutside) {
  const std::string page = render_report_html(example_input());
  for (const char* forbidden :
       {"http://", "https://", "src=", "href=", "url(", "@import", "<script"}) {
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
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No metrics yet"));
  EXPECT_FALSE(contains(page, "<svg"));
  EXPECT_FALSE(contains(page, "Evaluations"));
  EXPECT_TRUE(contains(page, "inverse_sqrt"));
}

TEST(ReportHtmlTest, SaysSoWhenNoLossWasRecorded) {
  ReportInput input = example_input();
  input.records = {StartRecord{}};
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No loss recorded yet"));
  EXPECT_FALSE(contains(page, "<svg"));
}

TEST(ReportHtmlTest, WorksWithoutConfigAndEscapesRecordText) {
  ReportInput input = example_input();
  input.config = nullptr;
  EvalRecord odd = nmt::testing::eval_record("<test>", 1.0, 2.0);
  odd.decoding = "{\"beam\":5}";
  input.records.push_back(odd);
  const std::string page = render_report_html(input);
  EXPECT_TRUE(contains(page, "No configuration"));
  EXPECT_TRUE(contains(page, "&lt;test&gt;"));
  EXPECT_FALSE(contains(page, "<test>"));
  EXPECT_TRUE(contains(page, "{&quot;beam&quot;:5}"));
}

}  // namespace
}  // namespace nmt::viz
