// End-to-end checks of `nmt prepare` and of the command line's error handling, through the binary.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_utils.h"

namespace nmt::cli {
namespace {

using testing::run_nmt;

TEST(PrepareCommandTest, WritesSplitsVocabulariesAndReport) {
  testing::ScratchDir dir;
  const auto result =
      run_nmt("prepare --config '" + testing::source_dir() + "/configs/quickstart.json' --data '" +
              testing::source_dir() + "/data/sample/en-es.tsv' --out '" + dir.path() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* name : {"train.tsv", "valid.tsv", "test.tsv", "vocab.src.txt", "vocab.tgt.txt",
                           "config.json", "prepare.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.file(name))) << name;
  }
  EXPECT_NE(testing::read_file(dir.file("train.tsv")).find("i am hungry\ttengo hambre\n"),
            std::string::npos);
  EXPECT_EQ(testing::read_file(dir.file("vocab.src.txt")).rfind("<PAD>\n<SOS>\n<EOS>\n<UNK>\n", 0),
            0u);
}

TEST(PrepareCommandTest, ReportsMalformedLinesWithFileAndLine) {
  testing::ScratchDir dir;
  const std::string tsv = dir.write("pairs.tsv", "Hi.\tHola.\nbroken line\nBye.\tAdiós.\n");
  const auto result =
      run_nmt("prepare --config '" + testing::source_dir() + "/configs/quickstart.json' --data '" +
              tsv + "' --out '" + dir.file("out") + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(tsv + ":2: expected 2, 3 or 4 tab-separated columns, got 1"),
            std::string::npos)
      << result.output;
}

TEST(PrepareCommandTest, ExitCodesSeparateConfigAndDataErrors) {
  testing::ScratchDir dir;
  const std::string bad_config = dir.write("bad.json", R"({"data": {"max_words": "x"}})");
  auto result = run_nmt("prepare --config '" + bad_config + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("data.max_words: expected a non-negative integer, got \"x\""),
            std::string::npos)
      << result.output;

  result = run_nmt("prepare --config '" + testing::source_dir() +
                   "/configs/quickstart.json' --max-words=-1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("data.max_words: expected a non-negative integer, got -1"),
            std::string::npos)
      << result.output;

  result =
      run_nmt("prepare --config '" + testing::source_dir() + "/configs/quickstart.json' --data '" +
              dir.file("missing.tsv") + "' --out '" + dir.file("out") + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("missing.tsv: no such file"), std::string::npos) << result.output;

  EXPECT_EQ(run_nmt("prepare").exit_code, 2);
  EXPECT_EQ(run_nmt("no-such-command").exit_code, 2);
}

TEST(HelpTest, VersionAndHelpExplainOptions) {
  const auto version = run_nmt("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find('.'), std::string::npos);
  const auto help = run_nmt("prepare --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--max-words"), std::string::npos);
  EXPECT_NE(help.output.find("overrides data.max_words"), std::string::npos);
}

}  // namespace
}  // namespace nmt::cli
