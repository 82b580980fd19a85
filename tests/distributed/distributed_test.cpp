// Data-parallel training for real: two `nmt train` processes over loopback Gloo (1 thread each),
// started as torchrun starts them (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or by
// `nmt train --nproc 2`. Checks that two ranks train exactly what one process trains with
// update_freq 2, that checkpoints move between world sizes, and that a dead rank stops the job.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/serialize/input-archive.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "nmt/io.h"
#include "test_utils.h"

namespace nmt {
namespace {

using testing::NmtProcess;

std::string job_config(const testing::ScratchDir& dir, int epochs) {
  return dir.write("job.json", R"({
      "data": {"path": ")" + testing::source_dir() +
                                   R"(/data/sample/en-es.tsv"},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "dropout": 0.0},
      "train": {"batch_size": 32, "epochs": )" +
                                   std::to_string(epochs) + R"(, "threads": 1, "log_every": 1,
                "distributed": {"timeout": 20, "bucket_mb": 0.05}}})");
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

// The two ranks of a job, launched the way torchrun launches them.
struct TwoRanks {
  TwoRanks(const testing::ScratchDir& dir,
           const std::vector<std::string>& arguments,
           const std::string& name) {
    const std::string port = std::to_string(free_port());
    for (int rank = 0; rank < 2; ++rank) {
      logs.push_back(dir.file(name + ".rank" + std::to_string(rank) + ".log"));
      ranks.push_back(std::make_unique<NmtProcess>(
          arguments, logs.back(),
          std::vector<std::pair<std::string, std::string>>{{"RANK", std::to_string(rank)},
                                                           {"LOCAL_RANK", std::to_string(rank)},
                                                           {"WORLD_SIZE", "2"},
                                                           {"MASTER_ADDR", "127.0.0.1"},
                                                           {"MASTER_PORT", port}}));
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
