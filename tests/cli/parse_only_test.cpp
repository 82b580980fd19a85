// NMT_PARSE_ONLY=1 (src/cli/app.h): nmt parses its command line with CLI11's checks, except that
// files need not exist, and runs nothing. scripts/check-commands.py checks every `nmt ...` line of
// README.md and docs/ this way. Also: a malformed --set is a usage error, not a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_utils.h"

namespace nmt {
namespace {

// Runs nmt with NMT_PARSE_ONLY=1 in a scratch directory.
testing::CommandResult parse_only(const testing::ScratchDir& scratch,
                                  const std::string& arguments) {
  return testing::run_command("cd '" + scratch.path() + "' && NMT_PARSE_ONLY=1 '" + NMT_BINARY +
                              "' " + arguments);
}

TEST(ParseOnlyTest, AcceptsAValidCommandLineNamingMissingFilesAndRunsNothing) {
  testing::ScratchDir scratch;
  const auto result = parse_only(
      scratch, "train --config missing.json --out runs/x --threads 2 --set model.dropout=0.3");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("nothing was run"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(scratch.file("runs")));
  EXPECT_EQ(parse_only(scratch, "score --hyp missing.hyp --ref missing.ref --json").exit_code, 0);
}

TEST(ParseOnlyTest, RefusesAnUnknownFlagThatHelpWouldHide) {
  testing::ScratchDir scratch;
  const auto result = parse_only(scratch, "train --config c.json --bogus-flag");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--bogus-flag"), std::string::npos) << result.output;
  // CLI11 2.1 answers --help before it looks for unknown flags, which is why the check cannot
  // rest on --help.
  EXPECT_EQ(testing::run_nmt("train --bogus-flag --help").exit_code, 0);
}

TEST(ParseOnlyTest, RefusesBadValuesMissingArgumentsAndMissingSubcommands) {
  testing::ScratchDir scratch;
  EXPECT_EQ(parse_only(scratch, "translate --strategy best").exit_code, 2);
  EXPECT_EQ(parse_only(scratch, "train --threads N").exit_code, 2);
  EXPECT_EQ(parse_only(scratch, "export --out dir").exit_code, 2);  // --format is required
  EXPECT_EQ(parse_only(scratch, "bench").exit_code, 2);
}

TEST(ParseOnlyTest, TakesEffectOnlyWhenSetToOne) {
  testing::ScratchDir scratch;
  const auto result = testing::run_command("cd '" + scratch.path() + "' && NMT_PARSE_ONLY=0 '" +
                                           NMT_BINARY + "' train --config missing.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("File does not exist: missing.json"), std::string::npos)
      << result.output;
}

TEST(CommandLineTest, ASetWithoutAnAssignmentIsAUsageError) {
  const auto result = testing::run_nmt("train --set model.dropout");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--set: expected section.key=value, got \"model.dropout\""),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace nmt
