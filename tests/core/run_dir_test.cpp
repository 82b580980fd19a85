#include "nmt/run_dir.h"

#include <gtest/gtest.h>

namespace nmt {
namespace {

TEST(RunDirTest, NamesEveryFileOfARun) {
  const RunDir run("runs/x");
  EXPECT_EQ(run.path(), "runs/x");
  EXPECT_EQ(run.config(), "runs/x/config.json");
  EXPECT_EQ(run.prepare_report(), "runs/x/prepare.json");
  EXPECT_EQ(run.split(Split::kTrain), "runs/x/train.tsv");
  EXPECT_EQ(run.split(Split::kValid), "runs/x/valid.tsv");
  EXPECT_EQ(run.split(Split::kTest), "runs/x/test.tsv");
  EXPECT_EQ(run.metrics(), "runs/x/metrics.jsonl");
  EXPECT_EQ(run.report(), "runs/x/report.html");
  EXPECT_EQ(run.checkpoint(), "runs/x/checkpoint.pt");
  EXPECT_EQ(run.best(), "runs/x/best.pt");
  EXPECT_EQ(run.averaged(), "runs/x/averaged.pt");
  EXPECT_EQ(run.epoch_weights(7), "runs/x/epoch-7.pt");
  EXPECT_EQ(run.file("spm.model"), "runs/x/spm.model");
}

}  // namespace
}  // namespace nmt
