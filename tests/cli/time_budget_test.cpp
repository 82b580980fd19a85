// nmt train --max-time: a run with a budget of a few seconds stops there as cleanly as Ctrl-C
// (checkpoint at the current batch), then ends like a normal end, with exit status 0: the weights
// it stopped at are validated, averaged with the last epochs and reported; its config records the
// budget and its end record says where it stopped. A resumed run spends only what is left.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/io.h"
#include "test_utils.h"

namespace nmt::cli {
namespace {

using testing::run_nmt;

std::vector<nlohmann::json> records_of(const std::string& run, const std::string& event) {
  std::vector<nlohmann::json> found;
  for (const std::string& line : read_lines(run + "/metrics.jsonl")) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record["event"] == event) found.push_back(record);
  }
  return found;
}

TEST(TimeBudgetTest, ARunStopsAtItsBudgetEndsAsAtItsEndAndAResumeTrainsOnlyTheRest) {
  testing::ScratchDir dir;
  const std::string config = dir.write("budget.json", R"({
      "data": {"path": ")" + testing::source_dir() + R"(/data/sample/en-es.tsv"},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2},
      "train": {"batch_size": 32, "epochs": 100000, "threads": 1, "average_last": 3}})");
  const std::string run = dir.file("run");
  const auto first = run_nmt("train --config '" + config + "' --out '" + run + "' --max-time 3s");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("spent the training time budget of 3s (train.max_time) at epoch "),
            std::string::npos)
      << first.output;
  EXPECT_EQ(nlohmann::json::parse(read_text_file(run + "/config.json"))["train"]["max_time"], "3s");
  for (const char* file : {"checkpoint.pt", "best.pt", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(run + "/" + file)) << file;
  }
  std::vector<nlohmann::json> end = records_of(run, "end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["reason"], "time_limit");
  const double spent = end[0]["train_seconds"].get<double>();
  EXPECT_GE(spent, 3.0);
  EXPECT_LT(spent, 4.0) << "an update of this model takes milliseconds";
  const int64_t step = end[0]["step"].get<int64_t>();
  const int64_t epochs = end[0]["epoch"].get<int64_t>();
  ASSERT_GE(epochs, 3) << "a 413-pair epoch takes well under a second";
  // The weights it stopped at were validated: at an epoch's end, or by a validation of their own.
  const bool is_mid_epoch = end[0]["batch"].get<int64_t>() > 0;
  const std::vector<nlohmann::json> valid = records_of(run, "valid");
  EXPECT_EQ(valid.size(), is_mid_epoch ? 1u : 0u);
  if (is_mid_epoch) {
    EXPECT_EQ(valid.at(0)["step"], step);
  } else {
    EXPECT_EQ(records_of(run, "epoch").back()["step"], step);
  }
  const std::vector<nlohmann::json> average = records_of(run, "average");
  ASSERT_EQ(average.size(), 1u);
  EXPECT_EQ(average[0]["checkpoints"], 3);

  // Two more seconds: the resumed run continues from the step it stopped at and trains those.
  const auto resumed = run_nmt("train --resume --out '" + run + "' --max-time 5s");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(records_of(run, "start").back()["step"], step);
  end = records_of(run, "end");
  ASSERT_EQ(end.size(), 2u);
  EXPECT_EQ(end[1]["reason"], "time_limit");
  EXPECT_GT(end[1]["step"].get<int64_t>(), step);
  EXPECT_GE(end[1]["train_seconds"].get<double>(), 5.0);
  EXPECT_LT(end[1]["train_seconds"].get<double>(), 6.0)
      << "a budget counted from the resume would end beyond " << spent + 5.0;
}

TEST(TimeBudgetTest, AMaxTimeWithoutAUnitIsRefusedNamingTheKey) {
  const auto result = run_nmt("train --config '" + testing::source_dir() +
                              "/configs/quickstart.json' --max-time 90 --out /nonexistent/run");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("train.max_time: expected a duration such as \"90s\", \"40m\", "
                               "\"2h\" or \"1h30m\" (0 = no limit), got \"90\""),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace nmt::cli
