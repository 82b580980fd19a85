// Data-parallel training for real: two `nmt train` processes over loopback Gloo (1 thread each),
// started as torchrun starts them (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or by
// `nmt train --nproc 2`. Checks that two ranks train exactly what one process trains with
// update_freq 2, that checkpoints move between world sizes, that a dead rank stops the job, that
// ranks resuming from different states refuse to train, that a long data phase on rank 0 does not
// time the others out, that a restarted torchrun attempt ignores the previous attempt's store
// keys, that two ranks with dropout resume bit-identically, what a failed collective says, and that
// a rank 0 that cannot start the run tells the others why.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/serialize/input-archive.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

#include "child_process.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/train/communicator.h"
#include "test_utils.h"

namespace nmt {
namespace {

using testing::NmtProcess;

std::string job_config(const testing::ScratchDir& dir,
                       int epochs,
                       double dropout = 0.0,
                       const std::string& data = R"("path": ")" + testing::source_dir() +
                                                 R"(/data/sample/en-es.tsv")",
                       int timeout = 20) {
  return dir.write("job.json", R"({
      "data": {)" + data + R"(},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "dropout": )" +
                                   std::to_string(dropout) + R"(},
      "train": {"batch_size": 32, "epochs": )" +
                                   std::to_string(epochs) + R"(, "threads": 1, "log_every": 1,
                "device": "cpu",
                "distributed": {"timeout": )" +
                                   std::to_string(timeout) + R"(, "bucket_mb": 0.05}}})");
}

class DistributedTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef NMT_HAVE_GLOO
    GTEST_SKIP() << "nmt was built without Gloo (Debian: libgloo-dev): no CPU ranks";
#endif
  }
};

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// How TwoRanks starts its ranks besides their arguments.
struct JobOptions {
  std::vector<std::string> working_directories;  // one per rank; none: the test's own
  std::vector<std::pair<std::string, std::string>> environment;  // for both ranks
  int port = 0;                                                  // MASTER_PORT; 0: a free one
};

// The two ranks of a job, launched the way torchrun launches them.
struct TwoRanks {
  TwoRanks(const testing::ScratchDir& dir,
           const std::vector<std::string>& arguments,
           const std::string& name,
           const JobOptions& options = {}) {
    const std::string port = std::to_string(options.port > 0 ? options.port : free_port());
    for (int rank = 0; rank < 2; ++rank) {
      logs.push_back(dir.file(name + ".rank" + std::to_string(rank) + ".log"));
      testing::LaunchOptions launch{{{"RANK", std::to_string(rank)},
                                     {"LOCAL_RANK", std::to_string(rank)},
                                     {"WORLD_SIZE", "2"},
                                     {"MASTER_ADDR", "127.0.0.1"},
                                     {"MASTER_PORT", port}},
                                    "",
                                    RLIM_INFINITY};
      launch.environment.insert(launch.environment.end(), options.environment.begin(),
                                options.environment.end());
      if (!options.working_directories.empty()) {
        launch.working_directory = options.working_directories[static_cast<std::size_t>(rank)];
      }
      ranks.push_back(std::make_unique<NmtProcess>(arguments, logs.back(), launch));
    }
  }
  // Both exit codes, rank 0's output on failure.
  void expect_success() {
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(ranks[rank]->wait(), 0) << testing::read_file(logs[rank]);
    }
  }
  std::vector<std::unique_ptr<NmtProcess>> ranks;
  std::vector<std::string> logs;
};

int run_alone(const std::vector<std::string>& arguments, const std::string& log) {
  return NmtProcess(arguments, log).wait();
}

// Seconds the data phase took by rank 0's log: "data ready in RUN (0.9 s)".
double data_phase_seconds(const std::string& log) {
  const auto at = log.find("data ready in ");
  if (at == std::string::npos) return 0.0;
  return std::stod(log.substr(log.find(" (", at) + 2));
}

// Largest absolute difference between the model weights of two checkpoints.
double weight_difference(const std::string& a_path, const std::string& b_path) {
  torch::serialize::InputArchive a;
  torch::serialize::InputArchive b;
  a.load_from(a_path);
  b.load_from(b_path);
  double largest = 0.0;
  int compared = 0;
  for (const std::string& key : a.keys()) {
    if (key.rfind("model/", 0) != 0 && key.rfind("optimizer/", 0) != 0) continue;
    torch::Tensor x;
    torch::Tensor y;
    EXPECT_TRUE(a.try_read(key, x) && b.try_read(key, y)) << key;
    largest =
        std::max(largest, (x.to(torch::kDouble) - y.to(torch::kDouble)).abs().max().item<double>());
    ++compared;
  }
  EXPECT_GT(compared, 10);
  return largest;
}

TEST_F(DistributedTest, TwoRanksTrainWhatOneProcessTrainsWithUpdateFreq2) {
  testing::ScratchDir dir;
  const std::string config = job_config(dir, 2);  // 11 batches an epoch: 6 updates, the last odd
  TwoRanks job(dir, {"train", "--config", config, "--out", dir.file("two")}, "two");
  job.expect_success();
  const std::string rank0 = testing::read_file(job.logs[0]);
  EXPECT_NE(rank0.find("distributed: 2 ranks (gloo), rendezvous at 127.0.0.1:"), std::string::npos)
      << rank0;
  EXPECT_NE(rank0.find("epoch 2/2 batch 11/11 step 12 "), std::string::npos) << rank0;
  // Rank 1 speaks only of problems; rank 0 alone writes the run.
  EXPECT_EQ(testing::read_file(job.logs[1]), "");

  ASSERT_EQ(run_alone({"train", "--config", config, "--out", dir.file("one"), "--set",
                       "train.update_freq=2"},
                      dir.file("one.log")),
            0)
      << testing::read_file(dir.file("one.log"));
  EXPECT_LE(weight_difference(dir.file("two/checkpoint.pt"), dir.file("one/checkpoint.pt")), 1e-5);
  EXPECT_LE(weight_difference(dir.file("two/best.pt"), dir.file("one/best.pt")), 1e-5);
}

TEST_F(DistributedTest, ACheckpointMovesBetweenWorldSizes) {
  testing::ScratchDir dir;
  const std::string config = job_config(dir, 3);
  const std::string run = dir.file("run");
  TwoRanks first(dir, {"train", "--config", config, "--out", run, "--max-steps", "4"}, "first");
  first.expect_success();

  // Two ranks made 4 updates of 2 batches: one process resumes at batch 8 of the epoch, ends it
  // at step 7 and stops there.
  const std::string alone_log = dir.file("alone.log");
  ASSERT_EQ(run_alone({"train", "--resume", "--out", run, "--max-steps", "7"}, alone_log), 0)
      << testing::read_file(alone_log);
  EXPECT_NE(testing::read_file(alone_log).find("resumed at epoch 1, batch 8, step 4"),
            std::string::npos)
      << testing::read_file(alone_log);

  TwoRanks again(dir, {"train", "--resume", "--out", run, "--max-steps", "0"}, "again");
  again.expect_success();
  const std::string rank0 = testing::read_file(again.logs[0]);
  EXPECT_NE(rank0.find("resumed at epoch 2, batch 0, step 7"), std::string::npos) << rank0;
  EXPECT_NE(rank0.find("trained 3 epochs"), std::string::npos) << rank0;
}

TEST_F(DistributedTest, ARankThatDiesStopsTheOtherWithAnErrorAndKeepsTheCheckpoint) {
  testing::ScratchDir dir;
  const std::string config = job_config(dir, 400);
  const std::string run = dir.file("run");
  TwoRanks job(dir, {"train", "--config", config, "--out", run, "--set", "train.save_every=5"},
               "job");
  // Kill rank 1 once a few checkpoints are on disk.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (testing::read_file(job.logs[0]).find(" step 20 ") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << testing::read_file(job.logs[0]);
    ASSERT_FALSE(job.ranks[0]->poll()) << testing::read_file(job.logs[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  job.ranks[1]->kill_now();
  const auto killed = std::chrono::steady_clock::now();
  const int code = job.ranks[0]->wait();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  const std::string log = testing::read_file(job.logs[0]);
  EXPECT_EQ(code, 1) << log;
  EXPECT_LT(seconds, 20.0);
  EXPECT_NE(log.find("nmt: error: distributed: rank 0 of 2: all-reduce of "), std::string::npos)
      << log;
  EXPECT_NE(log.find("another rank died, was killed or did not answer within 20 s"),
            std::string::npos)
      << log;
  // The last checkpoint is whole: training resumes from it with one process.
  const std::string resumed_log = dir.file("resumed.log");
  EXPECT_EQ(run_alone({"train", "--resume", "--out", run, "--max-steps", "1"}, resumed_log), 0)
      << testing::read_file(resumed_log);
}

TEST_F(DistributedTest, NprocStartsTheRanksAndAnInterruptStopsThemAllWithACheckpoint) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  NmtProcess launcher({"train", "--config", job_config(dir, 400), "--out", run, "--nproc", "2"},
                      dir.file("launcher.log"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (testing::read_file(dir.file("launcher.log")).find(" step 10 ") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    ASSERT_FALSE(launcher.poll()) << testing::read_file(dir.file("launcher.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  launcher.send(SIGINT);
  EXPECT_EQ(launcher.wait(), 130) << testing::read_file(dir.file("launcher.log"));
  const std::string log = testing::read_file(dir.file("launcher.log"));
  EXPECT_NE(log.find("starting 2 ranks on this machine"), std::string::npos) << log;
  EXPECT_NE(log.find("checkpoint saved, continue with --resume"), std::string::npos) << log;
  EXPECT_TRUE(std::filesystem::exists(run + "/checkpoint.pt"));
}

// train.max_time under ranks: rank 0's clock decides and the update's all-reduce tells the other
// rank, so both stop at the same update, rank 0 validates and averages, and the job exits 0.
TEST_F(DistributedTest, ATimeBudgetStopsEveryRankAtTheSameUpdate) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  TwoRanks job(dir,
               {"train", "--config", job_config(dir, 100000), "--out", run, "--max-time", "2s",
                "--set", "train.average_last=2"},
               "budget");
  job.expect_success();
  std::vector<nlohmann::json> ends;
  std::vector<nlohmann::json> averages;
  for (const std::string& line : read_lines(run + "/metrics.jsonl")) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record["event"] == "end") ends.push_back(record);
    if (record["event"] == "average") averages.push_back(record);
  }
  ASSERT_EQ(ends.size(), 1u) << "rank 0 alone writes";
  EXPECT_EQ(ends[0]["reason"], "time_limit");
  EXPECT_GE(ends[0]["train_seconds"].get<double>(), 2.0);
  EXPECT_EQ(averages.size(), 1u);
  EXPECT_NE(testing::read_file(job.logs[0]).find("spent the training time budget of 2s"),
            std::string::npos)
      << testing::read_file(job.logs[0]);
}

TEST_F(DistributedTest, AFailedCollectiveSaysWhetherTheErrorWasThisRanks) {
  // A job of one rank: no other rank can make its collectives fail.
  train::RankPlacement placement;
  placement.master_port = free_port();
  train::DistributedOptions options;
  options.timeout_seconds = 5;
  train::Communicator communicator(placement, options, c10::Device(c10::kCPU));
  try {
    communicator.sum({at::zeros({4}, at::kShort)}, "the gradients");
    FAIL() << "Gloo summed 16-bit integers, which it does not support";
  } catch (const Error& error) {
    const std::string message = error.what();
    // Gloo refuses the dtype in its worker thread, so the error comes out of the wait.
    EXPECT_EQ(message,
              "distributed: rank 0 of 1: all-reduce of the gradients failed on this rank: Invalid "
              "scalar type");
    EXPECT_EQ(message.find("another rank died"), std::string::npos) << message;
  }
}

TEST_F(DistributedTest, ARestartedTorchrunAttemptIgnoresThePreviousAttemptsStoreKeys) {
  testing::ScratchDir dir;
  // torchrun's agent serves the store and keeps it across restarts of failed workers; here the
  // test serves it, holding what an earlier attempt published: a run directory that is gone.
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(free_port());
  options.isServer = true;
  options.waitWorkers = false;
  options.timeout = std::chrono::seconds(20);
  c10d::TCPStore agent_store("127.0.0.1", options);
  const std::string stale = dir.file("gone");
  for (const char* key : {"directory", "nmt/job7/attempt_0/directory"}) {
    agent_store.set(key, std::vector<uint8_t>(stale.begin(), stale.end()));
  }
  TwoRanks job(
      dir, {"train", "--config", job_config(dir, 1), "--out", dir.file("run"), "--max-steps", "2"},
      "job",
      {{},
       {{"TORCHELASTIC_USE_AGENT_STORE", "True"},
        {"TORCHELASTIC_RUN_ID", "job7"},
        {"TORCHELASTIC_RESTART_COUNT", "1"}},
       options.port});
  job.expect_success();
  EXPECT_TRUE(agent_store.check({"nmt/job7/attempt_1/directory"}));
}

TEST_F(DistributedTest, ARank0ThatCannotStartTheRunTellsTheOtherRanksWhy) {
  testing::ScratchDir dir;
  const std::string missing = dir.file("missing.tsv");
  TwoRanks job(dir,
               {"train", "--config", job_config(dir, 1, 0.0, R"("path": ")" + missing + R"(")"),
                "--out", dir.file("run")},
               "job");
  EXPECT_NE(job.ranks[0]->wait(), 0);
  EXPECT_NE(job.ranks[1]->wait(), 0);
  const std::string rank0 = testing::read_file(job.logs[0]);
  const std::string rank1 = testing::read_file(job.logs[1]);
  EXPECT_NE(rank0.find(missing), std::string::npos) << rank0;
  const auto told = rank1.find("distributed: rank 0 could not start the run: ");
  ASSERT_NE(told, std::string::npos) << rank1;
  EXPECT_NE(rank1.find(missing, told), std::string::npos) << rank1;
}

// A filler corpus of `pairs` pairs of 17 and 13 words, all dropped by data.max_words 15.
void write_filler(const std::string& path, int pairs) {
  std::ofstream filler(path);
  const std::string words = "one two three four five six seven eight nine ten eleven twelve";
  for (int i = 0; i < pairs; ++i) {
    filler << words << " thirteen fourteen fifteen sixteen " << i << '\t' << words << " uno " << i
           << '\n';
  }
}

TEST_F(DistributedTest, WaitingForRank0sDataPhaseIsNotBoundedByTheCollectiveTimeout) {
  testing::ScratchDir dir;
  // A second corpus that takes rank 0 seconds to read and clean, all of it then dropped by
  // data.max_words, so that what the ranks train on stays small. The collective timeout is 2 s;
  // the filler grows until the data phase alone lasts twice that on this machine.
  constexpr int kTimeout = 2;
  const std::string config =
      job_config(dir, 1, 0.0,
                 R"("train": [")" + testing::source_dir() + R"(/data/sample/en-es.tsv", ")" +
                     dir.file("filler.tsv") + R"("], "max_words": 15)",
                 kTimeout);
  int pairs = 800000;
  for (double seconds = 0.0; seconds < 2.0 * kTimeout; pairs *= 2) {
    ASSERT_LT(pairs, 20000000) << "the data phase stays shorter than 2 timeouts";
    write_filler(dir.file("filler.tsv"), pairs);
    ASSERT_EQ(run_alone({"prepare", "--config", config, "--out", dir.file("timed")},
                        dir.file("timed.log")),
              0)
        << testing::read_file(dir.file("timed.log"));
    seconds = data_phase_seconds(testing::read_file(dir.file("timed.log")));
  }
  TwoRanks job(dir, {"train", "--config", config, "--out", dir.file("run"), "--max-steps", "2"},
               "job");
  job.expect_success();
  const std::string rank0 = testing::read_file(job.logs[0]);
  EXPECT_GT(data_phase_seconds(rank0), kTimeout) << rank0;
  EXPECT_NE(rank0.find("reached max_steps (2)"), std::string::npos) << rank0;
}

TEST_F(DistributedTest, RanksResumingFromCheckpointsTheyDisagreeAboutStopNamingWhatDiffers) {
  testing::ScratchDir dir;
  const std::string config = job_config(dir, 3);
  // Node-local copies of one run, as without a shared file system: one at step 4, one at step 6.
  std::filesystem::create_directories(dir.file("a"));
  std::filesystem::create_directories(dir.file("b"));
  ASSERT_EQ(run_alone({"train", "--config", config, "--out", dir.file("a/run"), "--max-steps", "4"},
                      dir.file("a.log")),
            0)
      << testing::read_file(dir.file("a.log"));
  std::filesystem::copy(dir.file("a/run"), dir.file("b/run"),
                        std::filesystem::copy_options::recursive);
  ASSERT_EQ(run_alone({"train", "--resume", "--out", dir.file("b/run"), "--max-steps", "6"},
                      dir.file("b.log")),
            0)
      << testing::read_file(dir.file("b.log"));

  // Rank 0 names the run "run", which each rank finds in its own working directory.
  TwoRanks job(dir, {"train", "--resume", "--out", "run", "--max-steps", "10"}, "job",
               {{dir.file("a"), dir.file("b")}, {}, 0});
  for (int rank = 0; rank < 2; ++rank) {
    const std::string log = testing::read_file(job.logs[rank]);
    EXPECT_EQ(job.ranks[rank]->wait(), 1) << log;
    const std::string here = rank == 0 ? "4" : "6";
    EXPECT_NE(testing::read_file(job.logs[rank])
                  .find("nmt: error: distributed: rank " + std::to_string(rank) +
                        " of 2: the ranks do not start from the same state: batch of the epoch "
                        "from 4 to 6 over the ranks (" +
                        here + " here); step from 4 to 6 over the ranks (" + here +
                        " here). Every rank must read the same checkpoint.pt and prepared data: "
                        "one run directory on a file system all ranks share\n"),
              std::string::npos)
        << testing::read_file(job.logs[rank]);
  }
}

TEST_F(DistributedTest, TwoRanksWithDropoutStoppedAndResumedEndBitIdentical) {
  testing::ScratchDir dir;
  const std::string config = job_config(dir, 2, /*dropout=*/0.1);
  TwoRanks straight(dir, {"train", "--config", config, "--out", dir.file("straight")}, "straight");
  straight.expect_success();
  TwoRanks first(dir,
                 {"train", "--config", config, "--out", dir.file("stopped"), "--max-steps", "3"},
                 "first");
  first.expect_success();
  TwoRanks rest(dir, {"train", "--resume", "--out", dir.file("stopped"), "--max-steps", "0"},
                "rest");
  rest.expect_success();
  // Rank 1 draws its dropout masks from its rank and the step (rank 0 from the generator that
  // checkpoints restore): a resumed job draws what an uninterrupted one draws. The ranks'
  // parameters stay identical throughout, or the job would have stopped.
  EXPECT_EQ(
      weight_difference(dir.file("straight/checkpoint.pt"), dir.file("stopped/checkpoint.pt")),
      0.0);
}

// `nmt bench train --nproc 2`: one rank alone, then both ranks; rank 0 reports for the job.
TEST_F(DistributedTest, BenchTrainUnderRanksReportsTotalsCollectivesAndEfficiency) {
  testing::ScratchDir dir;
  NmtProcess bench({"bench", "train", "--config", job_config(dir, 1), "--nproc", "2", "--steps",
                    "6", "--warmup", "1", "--json"},
                   dir.file("bench.log"));
  ASSERT_EQ(bench.wait(), 0) << testing::read_file(dir.file("bench.log"));
  std::vector<nlohmann::json> reports;
  for (const std::string& line : read_lines(dir.file("bench.log"))) {
    if (!line.empty() && line.front() == '{') reports.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(reports.size(), 1u) << "rank 0 alone prints, the baseline goes to the launcher";
  const nlohmann::json& report = reports.front();
  EXPECT_EQ(report["ranks"], 2);
  EXPECT_EQ(report["rank"], 0);
  EXPECT_EQ(report["backend"], "gloo");
  EXPECT_EQ(report["threads"], 1);
  EXPECT_GT(report["tgt_tokens_per_s"].get<double>(),
            report["tgt_tokens_per_s_per_rank"].get<double>())
      << "the total counts both ranks' tokens";
  EXPECT_GT(report["collective_ms_per_step"].get<double>(), 0.0);
  EXPECT_GT(report["collective_share"].get<double>(), 0.0);
  EXPECT_LT(report["collective_share"].get<double>(), 1.0);
  EXPECT_GT(report["baseline_tgt_tokens_per_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(report["scaling_efficiency"].get<double>(),
                   report["tgt_tokens_per_s"].get<double>() /
                       (2.0 * report["baseline_tgt_tokens_per_s"].get<double>()));
  const std::string log = testing::read_file(dir.file("bench.log"));
  EXPECT_NE(log.find("one rank alone: "), std::string::npos) << log;
}

}  // namespace
}  // namespace nmt
