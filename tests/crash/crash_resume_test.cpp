// Crash anywhere: `nmt train` is killed with SIGKILL at random moments, first during its data
// phase (before the first checkpoint), then while it trains, some of them while a checkpoint is
// being written, and resumed with `nmt train --resume` each time. The run must always resume
// (killed in its data phase, it prepares the data again), lose at most train.save_every steps per
// kill, and end with the same parameters, optimiser moments and generator state, bit for bit, as
// a run that was never interrupted.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/serialize/input-archive.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "test_utils.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kSaveEvery = 3;
constexpr int kDataPhaseKills = 3;
constexpr int kKills = 12;  // half of them during a checkpoint write

// The sample corpus, and a named test set of synthetic pairs whose reading and cleaning make the
// data phase last long enough to be killed in (it takes no part in training).
std::string crash_config(const testing::ScratchDir& dir) {
  std::ofstream test(dir.file("test.tsv"));
  for (int i = 0; i < 200000; ++i) {
    test << "test sentence number " << i << " of many\tfrase de prueba " << i << " de muchas\n";
  }
  return dir.write("crash.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                     R"(/data/sample/en-es.tsv", "test": ")" +
                                     dir.file("test.tsv") + R"("},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "dropout": 0.1},
      "train": {"batch_size": 32, "epochs": 24, "threads": 1, "log_every": 1,
                "save_every": )" + std::to_string(kSaveEvery) +
                                     "}}");
}

// The highest step in the run's metrics log, 0 before the first. A kill can tear the last line
// mid-write; the run skips such a line when it resumes, and so does this count.
int64_t last_logged_step(const std::string& run) {
  std::ifstream in(run + "/metrics.jsonl");
  int64_t last = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.back() != '}') continue;
    const auto at = line.find("\"step\":");
    if (at == std::string::npos || line.find("\"event\":\"train\"") == std::string::npos) continue;
    last = std::max<int64_t>(last, std::stoll(line.substr(at + 7)));
  }
  return last;
}

// Waits for a launch to say where it starts and returns that step (0: from the start).
int64_t starting_step(testing::NmtProcess& process, const std::string& log) {
  for (;;) {
    const std::string text = testing::read_file(log);
    const auto at = text.find("resumed at epoch ");
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) {
      return std::stoll(text.substr(text.find(", step ", at) + 7));
    }
    if (text.find("training from the start") != std::string::npos) return 0;
    if (process.poll()) {
      ADD_FAILURE() << "ended before resuming:\n" << text;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Seconds the data phase took by a run's log: "data ready in RUN (0.9 s)".
double data_phase_seconds(const std::string& log) {
  const auto at = log.find("data ready in ");
  if (at == std::string::npos) return 0.0;
  return std::stod(log.substr(log.find(" (", at) + 2));
}

// Waits until a launch is in its data phase: a fresh run once it holds its lock, a resumed one once
// it says it prepares the data again. False when it got past the data phase (or ended) first.
bool wait_for_data_phase(testing::NmtProcess& process,
                         const std::string& log,
                         const std::string& run,
                         bool is_fresh) {
  while (!process.poll()) {
    const std::string text = testing::read_file(log);
    if (text.find("training from the start") != std::string::npos ||
        text.find("resumed at epoch ") != std::string::npos) {
      return false;
    }
    if (is_fresh ? fs::exists(run + "/train.lock")
                 : text.find("preparing the data again") != std::string::npos) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

// Every entry of a checkpoint but the wall time spent, which differs between any two runs.
void expect_same_state(const std::string& expected_path, const std::string& actual_path) {
  torch::serialize::InputArchive expected;
  torch::serialize::InputArchive actual;
  expected.load_from(expected_path);
  actual.load_from(actual_path);
  const std::vector<std::string> keys = expected.keys();
  ASSERT_EQ(keys, actual.keys());
  int compared = 0;
  for (const std::string& key : keys) {
    if (key == "progress/train_seconds" || key == "config") continue;
    torch::Tensor a;
    torch::Tensor b;
    ASSERT_TRUE(expected.try_read(key, a)) << key;
    ASSERT_TRUE(actual.try_read(key, b)) << key;
    EXPECT_TRUE(a.sizes() == b.sizes() && torch::equal(a, b)) << key << " differs";
    ++compared;
  }
  EXPECT_GT(compared, 10);
}

TEST(CrashResumeTest, KilledAtRandomMomentsTheRunResumesAndEndsBitIdentical) {
  testing::ScratchDir dir;
  const std::string config = crash_config(dir);
  const std::string straight = dir.file("straight");
  ASSERT_EQ(testing::NmtProcess({"train", "--config", config, "--out", straight}, dir.file("s.log"))
                .wait(),
            0)
      << testing::read_file(dir.file("s.log"));
  const int64_t total_steps = last_logged_step(straight);
  ASSERT_GT(total_steps, 200);
  const double data_seconds = data_phase_seconds(testing::read_file(dir.file("s.log")));
  ASSERT_GT(data_seconds, 0.05);

  const std::string crashed = dir.file("crashed");
  const std::string save_in_progress = crashed + "/checkpoint.pt.tmp";
  std::mt19937 random(2026);
  std::string history;
  // Kills at random moments of the data phase: each launch finds a run that has config.json (its
  // first file) but no prepare.json (the data phase's last) and prepares the data again.
  int data_phase_kills = 0;
  for (int launch = 0; launch < kDataPhaseKills; ++launch) {
    const std::string log = dir.file("data" + std::to_string(launch) + ".log");
    testing::NmtProcess process =
        launch == 0 ? testing::NmtProcess({"train", "--config", config, "--out", crashed}, log)
                    : testing::NmtProcess({"train", "--resume", "--out", crashed}, log);
    const bool is_in_data_phase = wait_for_data_phase(process, log, crashed, launch == 0);
    // A launch that resumed from a checkpoint trains at once and could end the whole run (a few
    // seconds) before a random moment of the data phase's length: it is killed at once.
    if (is_in_data_phase) {
      std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int64_t>(
          0, static_cast<int64_t>(data_seconds * 0.8e6))(random)));
    }
    ASSERT_FALSE(process.poll()) << testing::read_file(log);
    process.kill_now();
    const bool was_in_data_phase = is_in_data_phase && !fs::exists(crashed + "/prepare.json");
    data_phase_kills += was_in_data_phase;
    history += "kill in the data phase " + std::to_string(launch + 1) +
               (was_in_data_phase ? "" : " (came after it)") + "\n";
  }
  EXPECT_GE(data_phase_kills, 1) << history;
  EXPECT_TRUE(fs::exists(crashed + "/config.json")) << history;

  int kills = 0;
  int kills_during_save = 0;
  // A launch killed after its data phase may have trained (and saved) a few steps before the kill.
  int64_t killed_at = last_logged_step(crashed);
  for (int launch = 0;; ++launch) {
    ASSERT_LE(launch, kKills) << history;
    const std::string log = dir.file("launch" + std::to_string(launch) + ".log");
    testing::NmtProcess process({"train", "--resume", "--out", crashed}, log);
    // The run resumes from its last checkpoint: at most save_every steps before the kill.
    const int64_t resumed = starting_step(process, log);
    history += "  resumed at step " + std::to_string(resumed) + "\n";
    EXPECT_GE(resumed, killed_at - kSaveEvery) << history;
    EXPECT_LE(resumed, killed_at) << history;
    if (kills == kKills) {
      ASSERT_EQ(process.wait(), 0) << testing::read_file(log);
      break;
    }
    // Odd kills wait for a checkpoint write to begin and cut it short; even ones come after a
    // random number of further steps plus a random fraction of a step.
    const bool during_save = kills % 2 == 1;
    const int64_t target =
        last_logged_step(crashed) + std::uniform_int_distribution<int64_t>(1, 35)(random);
    const auto extra =
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 6000)(random));
    bool leftover = fs::exists(save_in_progress);  // from a save killed before: wait for a new one
    while (!process.poll()) {
      if (during_save) {
        const bool saving = fs::exists(save_in_progress);
        if (leftover) {
          leftover = saving;
        } else if (saving) {
          break;
        }
      } else if (last_logged_step(crashed) >= target) {
        std::this_thread::sleep_for(extra);
        break;
      }
    }
    ASSERT_FALSE(process.poll()) << "training ended before kill " << kills + 1 << "\n"
                                 << history << testing::read_file(log);
    process.kill_now();
    ++kills;
    killed_at = last_logged_step(crashed);
    const bool cut_a_save = fs::exists(save_in_progress);
    if (cut_a_save) ++kills_during_save;
    history += "kill " + std::to_string(kills) + " at step " + std::to_string(killed_at) +
               (cut_a_save ? ", during a checkpoint write" : "") + "\n";
  }
  std::cout << history;
  EXPECT_EQ(kills, kKills) << history;
  EXPECT_GE(kills_during_save, 1) << history;
  EXPECT_EQ(last_logged_step(crashed), total_steps);
  expect_same_state(straight + "/checkpoint.pt", crashed + "/checkpoint.pt");
  expect_same_state(straight + "/best.pt", crashed + "/best.pt");
}

// Subword regularisation samples each epoch's segmentations from (train.seed, epoch): a run
// stopped mid-epoch and resumed trains on the same samples and ends bit for bit where an
// uninterrupted one ends; its vocabulary is the one a run without sampling builds.
TEST(CrashResumeTest, WithSubwordSamplingAResumedRunEndsBitIdentical) {
  testing::ScratchDir dir;
  const std::string config = dir.write("sampled.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                                           R"(/data/sample/en-es.tsv"},
      "text": {"clean": "normalize", "tokenizer": "sentencepiece", "vocab_size": 500,
               "shared_vocab": true, "sampling_nbest": -1, "sampling_alpha": 0.2},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "dropout": 0.1},
      "train": {"batch_size": 32, "epochs": 3, "threads": 1, "log_every": 1}})");
  const auto train = [&dir](const std::vector<std::string>& arguments, const std::string& log) {
    testing::NmtProcess process(arguments, dir.file(log));
    const int status = process.wait();
    EXPECT_EQ(status, 0) << testing::read_file(dir.file(log));
    return status == 0;
  };
  const std::string straight = dir.file("straight");
  ASSERT_TRUE(train({"train", "--config", config, "--out", straight}, "straight.log"));
  const std::string resumed = dir.file("resumed");
  ASSERT_TRUE(train({"train", "--config", config, "--out", resumed, "--max-steps", "17"},
                    "first.log"));  // inside epoch 2
  ASSERT_TRUE(train({"train", "--resume", "--out", resumed, "--max-steps", "0"}, "second.log"));
  EXPECT_NE(testing::read_file(dir.file("second.log")).find("resumed at epoch 2, batch "),
            std::string::npos)
      << testing::read_file(dir.file("second.log"));
  expect_same_state(straight + "/checkpoint.pt", resumed + "/checkpoint.pt");

  const std::string plain = dir.file("plain");
  ASSERT_TRUE(train({"train", "--config", config, "--out", plain, "--set", "text.sampling_nbest=0",
                     "--set", "text.sampling_alpha=0"},
                    "plain.log"));
  EXPECT_EQ(testing::read_file(plain + "/spm.model"), testing::read_file(straight + "/spm.model"))
      << "the vocabulary never samples";
  torch::serialize::InputArchive sampled_weights;
  torch::serialize::InputArchive plain_weights;
  sampled_weights.load_from(straight + "/checkpoint.pt");
  plain_weights.load_from(plain + "/checkpoint.pt");
  torch::Tensor a;
  torch::Tensor b;
  ASSERT_TRUE(sampled_weights.try_read("model/encoder.0.norm1.weight", a));
  ASSERT_TRUE(plain_weights.try_read("model/encoder.0.norm1.weight", b));
  EXPECT_FALSE(torch::equal(a, b)) << "sampling changed what the model trained on";
}

}  // namespace
}  // namespace nmt
