#include "nmt/run_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <optional>

#include "nmt/error.h"
#include "test_utils.h"

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
  EXPECT_EQ(run.lock(), "runs/x/train.lock");
  EXPECT_EQ(run.epoch_weights(7), "runs/x/epoch-7.pt");
  EXPECT_EQ(run.file("spm.model"), "runs/x/spm.model");
}

TEST(RunLockTest, OneWriterPerRunAndTheMessageNamesTheHolder) {
  testing::ScratchDir dir;
  const RunDir run(dir.file("run"));
  std::optional<RunLock> first(run);
  try {
    RunLock second(run);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              run.path() + " is being trained by another nmt process (pid " +
                  std::to_string(::getpid()) +
                  "); wait for it to finish or stop it, or choose another --out");
  }
  first.reset();
  EXPECT_NO_THROW(RunLock again(run));
}

TEST(RunLockTest, ALockLeftByAKilledProcessDoesNotBlock) {
  testing::ScratchDir dir;
  const RunDir run(dir.file("run"));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunLock held(run);
    ::raise(SIGKILL);  // dies holding the lock, as kill -9 leaves it
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_NE(testing::read_file(run.lock()), "") << "the child took the lock";
  EXPECT_NO_THROW(RunLock after(run));
}

}  // namespace
}  // namespace nmt
