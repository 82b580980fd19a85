#include "nmt/train/placement.h"

#include <cstdlib>

#include "nmt/error.h"

namespace nmt::train {

namespace {

int integer_variable(const Environment& environment, const char* name, int minimum) {
  const char* text = environment(name);
  if (!text)
    throw ConfigError(std::string(name) + ": not set, but the launcher's other variables are");
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < minimum || value > 1'000'000) {
    throw ConfigError(std::string(name) + ": expected an integer >= " + std::to_string(minimum) +
                      ", got \"" + text + "\"");
  }
  return static_cast<int>(value);
}

int optional_integer(const Environment& environment, const char* name, int minimum, int fallback) {
  return environment(name) ? integer_variable(environment, name, minimum) : fallback;
}

// The step's tasks per node (srun), else the job's; "8" or "8(x4)": the count before the
// parenthesis is this node's.
int slurm_tasks_per_node(const Environment& environment, int world_size) {
  const char* text = environment("SLURM_STEP_TASKS_PER_NODE");
  if (!text) text = environment("SLURM_NTASKS_PER_NODE");
  if (!text) return world_size;
  const int tasks = std::atoi(text);
  return tasks > 0 ? tasks : world_size;
}

// srun sets SLURM_STEP_NUM_TASKS for the tasks of a job step. A batch script (sbatch --ntasks 8
// runs it once, with SLURM_NTASKS=8 and SLURM_PROCID=0) or a one-task step is a single process:
// waiting there for 7 other ranks would wait forever.
bool is_multi_task_slurm_step(const Environment& environment) {
  return environment("SLURM_PROCID") && environment("SLURM_STEP_NUM_TASKS") &&
         integer_variable(environment, "SLURM_STEP_NUM_TASKS", 1) > 1;
}

// Keys in a store that outlives one attempt of a job (torchrun's agent store, which restarts
// failed workers) must not be read by the next attempt: each attempt gets its own prefix.
std::string store_prefix(const Environment& environment) {
  const char* restart = environment("TORCHELASTIC_RESTART_COUNT");
  const char* run_id = environment("TORCHELASTIC_RUN_ID");
  if (!restart && !run_id) return "";
  return std::string("nmt/") + (run_id ? run_id : "") + "/attempt_" +
         std::to_string(restart ? integer_variable(environment, "TORCHELASTIC_RESTART_COUNT", 0)
                                : 0);
}

void check_consistent(const RankPlacement& placement) {
  if (placement.rank >= placement.world_size) {
    throw ConfigError("RANK: " + std::to_string(placement.rank) + " is not below WORLD_SIZE " +
                      std::to_string(placement.world_size));
  }
  if (placement.local_rank >= placement.local_world_size) {
    throw ConfigError("LOCAL_RANK: " + std::to_string(placement.local_rank) +
                      " is not below LOCAL_WORLD_SIZE " +
                      std::to_string(placement.local_world_size));
  }
}

}  // namespace

std::string first_slurm_host(const std::string& node_list) {
  const std::size_t end = node_list.find_first_of(",[");
  if (end == std::string::npos || node_list[end] == ',') return node_list.substr(0, end);
  // "prefix[07-09,12]": the prefix and the first number of the range, zero padding kept.
  const std::size_t first_end = node_list.find_first_of("-,]", end + 1);
  return node_list.substr(0, end) + node_list.substr(end + 1, first_end - end - 1);
}

std::optional<RankPlacement> placement_from_environment(const Environment& environment) {
  RankPlacement placement;
  if (environment("RANK") || environment("WORLD_SIZE")) {
    placement.rank = integer_variable(environment, "RANK", 0);
    placement.world_size = integer_variable(environment, "WORLD_SIZE", 1);
    placement.local_rank = optional_integer(environment, "LOCAL_RANK", 0, 0);
    placement.local_world_size =
        optional_integer(environment, "LOCAL_WORLD_SIZE", 1, placement.world_size);
    if (!environment("MASTER_ADDR") && placement.world_size > 1) {
      throw ConfigError("MASTER_ADDR: not set; the address of rank 0's machine is needed");
    }
  } else if (is_multi_task_slurm_step(environment)) {
    placement.rank = integer_variable(environment, "SLURM_PROCID", 0);
    placement.world_size = integer_variable(environment, "SLURM_STEP_NUM_TASKS", 2);
    placement.local_rank = optional_integer(environment, "SLURM_LOCALID", 0, 0);
    placement.local_world_size = slurm_tasks_per_node(environment, placement.world_size);
    if (!environment("MASTER_ADDR")) {
      const char* nodes = environment("SLURM_STEP_NODELIST");
      if (!nodes) nodes = environment("SLURM_JOB_NODELIST");
      if (!nodes) throw ConfigError("MASTER_ADDR: not set and SLURM_JOB_NODELIST is missing");
      placement.master_addr = first_slurm_host(nodes);
    }
  } else {
    return std::nullopt;
  }
  if (const char* address = environment("MASTER_ADDR")) placement.master_addr = address;
  placement.master_port = optional_integer(environment, "MASTER_PORT", 1, 29500);
  placement.store_prefix = store_prefix(environment);
  if (placement.master_port > 65535) {
    throw ConfigError("MASTER_PORT: expected a port number, got " +
                      std::to_string(placement.master_port));
  }
  check_consistent(placement);
  return placement;
}

std::optional<RankPlacement> placement_from_environment() {
  return placement_from_environment([](const char* name) { return std::getenv(name); });
}

}  // namespace nmt::train
