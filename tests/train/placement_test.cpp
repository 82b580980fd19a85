#include "nmt/train/placement.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "nmt/error.h"

namespace nmt::train {
namespace {

std::optional<RankPlacement> place(const std::map<std::string, std::string>& variables) {
  return placement_from_environment([&](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const std::map<std::string, std::string>& variables) {
  try {
    place(variables);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(PlacementTest, NoLauncherMeansASingleProcess) { EXPECT_FALSE(place({{"HOME", "/root"}})); }

TEST(PlacementTest, ReadsTorchrunsVariables) {
  const auto placement = place({{"RANK", "9"},
                                {"WORLD_SIZE", "16"},
                                {"LOCAL_RANK", "1"},
                                {"LOCAL_WORLD_SIZE", "8"},
                                {"MASTER_ADDR", "node01"},
                                {"MASTER_PORT", "29400"}});
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->rank, 9);
  EXPECT_EQ(placement->world_size, 16);
  EXPECT_EQ(placement->local_rank, 1);
  EXPECT_EQ(placement->local_world_size, 8);
  EXPECT_EQ(placement->master_addr, "node01");
  EXPECT_EQ(placement->master_port, 29400);
  EXPECT_FALSE(placement->is_leader());
}

TEST(PlacementTest, ReadsSlurmsVariablesWithTheFirstNodeAsMaster) {
  const auto placement = place({{"SLURM_PROCID", "5"},
                                {"SLURM_NTASKS", "8"},
                                {"SLURM_STEP_NUM_TASKS", "8"},
                                {"SLURM_LOCALID", "1"},
                                {"SLURM_STEP_TASKS_PER_NODE", "4(x2)"},
                                {"SLURM_JOB_NODELIST", "gpu[07-08]"}});
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->rank, 5);
  EXPECT_EQ(placement->world_size, 8);
  EXPECT_EQ(placement->local_rank, 1);
  EXPECT_EQ(placement->local_world_size, 4);
  EXPECT_EQ(placement->master_addr, "gpu07");
  EXPECT_EQ(placement->master_port, 29500);
}

TEST(PlacementTest, ABatchScriptOrAOneTaskStepIsASingleProcess) {
  // What `sbatch --ntasks 8` gives the script it runs once: no step variables.
  EXPECT_FALSE(place({{"SLURM_PROCID", "0"},
                      {"SLURM_NTASKS", "8"},
                      {"SLURM_NTASKS_PER_NODE", "8"},
                      {"SLURM_JOB_NODELIST", "gpu07"}}));
  // `srun -n 1 nmt train ...` inside a larger allocation.
  EXPECT_FALSE(place({{"SLURM_PROCID", "0"},
                      {"SLURM_NTASKS", "1"},
                      {"SLURM_STEP_NUM_TASKS", "1"},
                      {"SLURM_JOB_NODELIST", "gpu07"}}));
  // A step of 2 tasks in an allocation of 8 runs on the step's nodes.
  const auto step = place({{"SLURM_PROCID", "1"},
                           {"SLURM_NTASKS", "8"},
                           {"SLURM_STEP_NUM_TASKS", "2"},
                           {"SLURM_STEP_NODELIST", "gpu[11-12]"},
                           {"SLURM_JOB_NODELIST", "gpu[07-14]"}});
  ASSERT_TRUE(step);
  EXPECT_EQ(step->world_size, 2);
  EXPECT_EQ(step->master_addr, "gpu11");
  EXPECT_EQ(step->store_prefix, "");
}

TEST(PlacementTest, EachTorchrunAttemptHasItsOwnStorePrefix) {
  const std::map<std::string, std::string> attempt{{"RANK", "0"},
                                                   {"WORLD_SIZE", "2"},
                                                   {"MASTER_ADDR", "node01"},
                                                   {"TORCHELASTIC_RUN_ID", "job7"},
                                                   {"TORCHELASTIC_RESTART_COUNT", "0"}};
  EXPECT_EQ(place(attempt)->store_prefix, "nmt/job7/attempt_0");
  std::map<std::string, std::string> restarted = attempt;
  restarted["TORCHELASTIC_RESTART_COUNT"] = "3";
  EXPECT_EQ(place(restarted)->store_prefix, "nmt/job7/attempt_3");
  EXPECT_EQ(place({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}})->store_prefix, "");
}

TEST(PlacementTest, FirstSlurmHost) {
  EXPECT_EQ(first_slurm_host("gpu[07-09,12],cpu1"), "gpu07");
  EXPECT_EQ(first_slurm_host("a1,b2"), "a1");
  EXPECT_EQ(first_slurm_host("single"), "single");
  EXPECT_EQ(first_slurm_host("n[3,5]"), "n3");
}

TEST(PlacementTest, MalformedVariablesAreNamed) {
  EXPECT_EQ(error_of({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}),
            "RANK: expected an integer >= 0, got \"x\"");
  EXPECT_EQ(error_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}),
            "RANK: 2 is not below WORLD_SIZE 2");
  EXPECT_EQ(error_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}}),
            "MASTER_ADDR: not set; the address of rank 0's machine is needed");
  EXPECT_EQ(error_of({{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}),
            "RANK: not set, but the launcher's other variables are");
  EXPECT_EQ(error_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "70000"}}),
            "MASTER_PORT: expected a port number, got 70000");
}

}  // namespace
}  // namespace nmt::train
