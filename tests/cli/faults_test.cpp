// Faults from outside the program, produced for real: a full disk (writes into /dev/full fail
// with ENOSPC exactly as on a full filesystem), memory that runs out, and SIGTERM or SIGINT sent
// to a real `nmt train` at random moments of its data phase.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "child_process.h"
#include "nmt/run_dir.h"
#include "test_utils.h"

namespace nmt::cli {
namespace {

using testing::run_command;
using testing::run_nmt;

// A configuration training `model` (a JSON object) on the sample corpus for one epoch.
std::string sample_config(const testing::ScratchDir& dir, const std::string& model) {
  return dir.write("config.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                      R"(/data/sample/en-es.tsv"},
      "model": )" + model + R"(,
      "train": {"batch_size": 32, "epochs": 1, "threads": 1}})");
}

std::string tiny_config(const testing::ScratchDir& dir) {
  return sample_config(dir, R"({"d_model": 16, "layers": 1, "heads": 2, "ff_mult": 2})");
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

TEST(KilledRunTest, ARunKilledBeforeItsFirstCheckpointResumesFromTheStart) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  // What a kill between the data phase and the first save leaves: data, vocabularies, config.
  ASSERT_EQ(run_nmt("prepare --config '" + tiny_config(dir) + "' --out '" + run + "'").exit_code,
            0);
  const auto resumed = run_nmt("train --resume --out '" + run + "' --max-steps 2");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(
      resumed.output.find(run + " has no checkpoint yet (stopped before its first save): training "
                                "from the start"),
      std::string::npos)
      << resumed.output;
  EXPECT_TRUE(std::filesystem::exists(run + "/checkpoint.pt"));

  const auto missing = run_nmt("train --resume --out '" + dir.file("nowhere") + "'");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(
      missing.output.find("nmt: error: --out: " + dir.file("nowhere") + " is not a run directory"),
      std::string::npos)
      << missing.output;
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

TEST(RunLockTest, AnotherTrainingOrPrepareIntoARunBeingTrainedIsRefused) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  const auto first =
      run_nmt("train --config '" + tiny_config(dir) + "' --out '" + run + "' --max-steps 1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string checkpoint = testing::read_file(run + "/checkpoint.pt");
  {
    const RunLock training(RunDir{run});  // this process stands for the training in progress
    const auto second = run_nmt("train --resume --out '" + run + "' --max-steps 2");
    EXPECT_EQ(second.exit_code, 1) << second.output;
    EXPECT_NE(second.output.find(" is being trained by another nmt process (pid "),
              std::string::npos)
        << second.output;
    EXPECT_EQ(testing::read_file(run + "/checkpoint.pt"), checkpoint);
    const std::string split = testing::read_file(run + "/train.tsv");
    const auto prepare =
        run_nmt("prepare --config '" + tiny_config(dir) + "' --out '" + run + "' --seed 99");
    EXPECT_EQ(prepare.exit_code, 1) << prepare.output;
    EXPECT_NE(prepare.output.find(" is being trained by another nmt process"), std::string::npos)
        << prepare.output;
    EXPECT_EQ(testing::read_file(run + "/train.tsv"), split);
  }
  EXPECT_EQ(run_nmt("train --resume --out '" + run + "' --max-steps 2").exit_code, 0);
}

std::string model_config(const testing::ScratchDir& dir, int d_model, int layers) {
  return sample_config(dir, R"({"d_model": )" + std::to_string(d_model) + R"(, "layers": )" +
                                std::to_string(layers) + R"(, "heads": 8})");
}

TEST(OutOfMemoryTest, AModelTooLargeForTheMachineIsRefusedBeforeAllocating) {
  testing::ScratchDir dir;
  // About 4.5e10 parameters: 670 GiB of weights, gradients and Adam moments.
  const auto result = run_nmt("train --config '" + model_config(dir, 16384, 6) + "' --out '" +
                              dir.file("run") + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(
      result.output.find("nmt: error: model: 4.51e+10 parameters need 672.2 GiB for fp32 weights"),
      std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("use a smaller model (model.d_model, model.layers"),
            std::string::npos);
  EXPECT_EQ(result.output.find("frame #"), std::string::npos);
}

TEST(OutOfMemoryTest, AnAllocationFailureWhileTrainingIsOneLineOfAdvice) {
  testing::ScratchDir dir;
  const int64_t loaded = testing::loaded_memory(dir).address_space_kib;
  ASSERT_GT(loaded, 0) << "could not measure nmt's address space";
  // 1.2e8 parameters need 1.8 GiB with gradients and Adam moments, which the machine has, but the
  // address space is limited to what the loaded libraries take and 750 MiB more: the allocator
  // itself fails, somewhere inside LibTorch.
  const auto result = run_command("ulimit -v " + std::to_string(loaded + 750 * 1024) + " && '" +
                                  std::string(NMT_BINARY) + "' train --config '" +
                                  model_config(dir, 1024, 4) + "' --out '" + dir.file("run") + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("nmt: error: out of host memory (an allocation of "),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("frame #"), std::string::npos) << result.output;
}

// The sample corpus for training and a named test set of `pairs` synthetic pairs: reading and
// cleaning it makes the data phase last about a second, without changing what is trained.
std::string long_data_phase_config(const testing::ScratchDir& dir, int pairs) {
  std::ofstream test(dir.file("test.tsv"));
  for (int i = 0; i < pairs; ++i) {
    test << "test sentence number " << i << " of many\tfrase de prueba " << i << " de muchas\n";
  }
  return dir.write("long.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                    R"(/data/sample/en-es.tsv", "test": ")" + dir.file("test.tsv") +
                                    R"("},
      "model": {"d_model": 16, "layers": 1, "heads": 2, "ff_mult": 2},
      "train": {"batch_size": 32, "epochs": 100, "threads": 1}})");
}

// Seconds the data phase took by the run's log: "data ready in RUN (0.9 s)".
double data_phase_seconds(const std::string& log) {
  const auto at = log.find("data ready in ");
  if (at == std::string::npos) return 0.0;
  return std::stod(log.substr(log.find(" (", at) + 2));
}

struct Stopped {
  int status;
  std::string log;
};

// Runs nmt with `arguments` into `run` and sends it `signal` at a random moment of its first
// `seconds` after it takes the run's lock, where its data phase begins.
Stopped signal_after_the_lock(const std::vector<std::string>& arguments,
                              const std::string& run,
                              int signal,
                              double seconds,
                              std::mt19937& random) {
  const std::string log = run + ".log";
  testing::NmtProcess process(arguments, log);
  while (!std::filesystem::exists(run + "/train.lock")) {
    if (process.poll()) {
      ADD_FAILURE() << "ended before taking its lock: " << testing::read_file(log);
      return {process.wait(), testing::read_file(log)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::microseconds(
      std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(seconds * 1e6))(random)));
  process.send(signal);
  const int status = process.wait();
  return {status, testing::read_file(log)};
}

TEST(DataPhaseSignalTest, SigtermOrSigintAnywhereInTheDataPhaseStopsAndResumeFinishesTheRun) {
  testing::ScratchDir dir;
  const std::string config = long_data_phase_config(dir, 300000);
  const auto timed =
      run_nmt("train --config '" + config + "' --out '" + dir.file("timed") + "' --max-steps 1");
  ASSERT_EQ(timed.exit_code, 0) << timed.output;
  const double seconds = data_phase_seconds(timed.output);
  ASSERT_GT(seconds, 0.1) << timed.output;

  std::mt19937 random(28);
  int in_data_phase = 0;
  for (int round = 0; round < 6; ++round) {
    const int signal = round % 2 == 0 ? SIGTERM : SIGINT;
    const std::string run = dir.file("run" + std::to_string(round));
    const auto [status, text] =
        signal_after_the_lock({"train", "--config", config, "--out", run, "--max-steps", "40"}, run,
                              signal, seconds * 0.9, random);
    EXPECT_EQ(status, 130) << text;
    if (text.find("data ready in") == std::string::npos) {
      ++in_data_phase;
      EXPECT_NE(text.find("nmt: interrupted during the data phase of " + run +
                          "; `nmt train --resume --out " + run +
                          "` goes on from what it finished and trains\n"),
                std::string::npos)
          << text;
    } else {
      EXPECT_NE(text.find("checkpoint saved, continue with --resume"), std::string::npos) << text;
    }
    EXPECT_TRUE(std::filesystem::exists(run + "/config.json")) << "written first";
    const auto resumed = run_nmt("train --resume --out '" + run + "' --max-steps 40");
    EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("reached max_steps (40)"), std::string::npos) << resumed.output;
  }
  EXPECT_GE(in_data_phase, 3) << "signals that came during the data phase";
}

// `nmt prepare` stopped by a signal says how to go on, and the same command then prepares what one
// run straight through prepares. A signal may come after the data is ready, while the process
// frees its memory and exits: its handler may be gone by then, and the signal ends the process as
// it ends any (status 128 + signal), the prepared run already complete.
TEST(DataPhaseSignalTest, SigtermOrSigintWhilePreparingSaysHowToGoOnAndTheSameCommandFinishes) {
  testing::ScratchDir dir;
  const std::string config = long_data_phase_config(dir, 300000);
  const std::string straight = dir.file("straight");
  const auto timed = run_nmt("prepare --config '" + config + "' --out '" + straight + "'");
  ASSERT_EQ(timed.exit_code, 0) << timed.output;
  const double seconds = data_phase_seconds(timed.output);
  ASSERT_GT(seconds, 0.1) << timed.output;

  std::mt19937 random(29);
  int interrupted = 0;
  for (int round = 0; round < 4; ++round) {
    const std::string run = dir.file("run" + std::to_string(round));
    const int signal = round % 2 == 0 ? SIGTERM : SIGINT;
    const auto [status, text] = signal_after_the_lock({"prepare", "--config", config, "--out", run},
                                                      run, signal, seconds * 0.9, random);
    if (text.find("data ready in " + run) == std::string::npos) {
      ++interrupted;
      EXPECT_EQ(status, 130) << text;
      EXPECT_NE(text.find("nmt: interrupted while preparing " + run +
                          "; the same `nmt prepare` into it goes on from what it finished\n"),
                std::string::npos)
          << text;
    } else {
      // 130 also when the signal came between that line and the handler's removal.
      EXPECT_TRUE(status == 0 || status == 130 || status == 128 + signal) << status << "\n" << text;
    }
    const auto again = run_nmt("prepare --config '" + config + "' --out '" + run + "'");
    ASSERT_EQ(again.exit_code, 0) << again.output;
    for (const std::string name : {"train.ids", "valid.ids", "test.tsv", "prepare.json"}) {
      EXPECT_EQ(testing::read_file(run + "/" + name), testing::read_file(straight + "/" + name))
          << name;
    }
  }
  EXPECT_GE(interrupted, 2) << "signals that came while preparing";
}

}  // namespace
}  // namespace nmt::cli
