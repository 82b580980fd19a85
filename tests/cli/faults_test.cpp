// Faults from outside the program, produced for real: a full disk (writes into /dev/full fail
// with ENOSPC exactly as on a full filesystem).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_utils.h"

namespace nmt::cli {
namespace {

using testing::run_nmt;

std::string tiny_config(const testing::ScratchDir& dir) {
  return dir.write("tiny.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                    R"(/data/sample/en-es.tsv"},
      "model": {"d_model": 16, "layers": 1, "heads": 2, "ff_mult": 2},
      "train": {"batch_size": 32, "epochs": 1, "threads": 1}})");
}

TEST(DiskFullTest, ACheckpointThatCannotBeWrittenStopsCleanlyAndTheRunResumes) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  const auto first =
      run_nmt("train --config '" + tiny_config(dir) + "' --out '" + run + "' --max-steps 2");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string checkpoint = testing::read_file(run + "/checkpoint.pt");
  if (!testing::link_to_full_device(run + "/checkpoint.pt.tmp")) GTEST_SKIP() << "no /dev/full";

  const auto full = run_nmt("train --resume --out '" + run + "' --max-steps 4");
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_NE(full.output.find("nmt: error: cannot write " + run +
                             "/checkpoint.pt: No space left on device\n"),
            std::string::npos)
      << full.output;
  EXPECT_EQ(full.output.find("terminate called"), std::string::npos);
  EXPECT_EQ(testing::read_file(run + "/checkpoint.pt"), checkpoint);
  EXPECT_FALSE(std::filesystem::is_symlink(run + "/checkpoint.pt.tmp"));

  const auto freed = run_nmt("train --resume --out '" + run + "' --max-steps 4");
  EXPECT_EQ(freed.exit_code, 0) << freed.output;
  EXPECT_NE(freed.output.find("resumed at epoch 1, batch 2, step 2"), std::string::npos)
      << freed.output;
}

TEST(DiskFullTest, SplitFilesThatCannotBeWrittenAreAnErrorNamingTheFile) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  std::filesystem::create_directories(run);
  if (!testing::link_to_full_device(run + "/train.tsv.tmp")) GTEST_SKIP() << "no /dev/full";
  const auto result = run_nmt("prepare --config '" + tiny_config(dir) + "' --out '" + run + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("cannot write " + run + "/train.tsv: No space left on device"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace nmt::cli
