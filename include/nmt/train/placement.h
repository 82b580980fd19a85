// Where this process stands in a distributed job, read from the environment that launchers set:
// torchrun (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
// TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_RUN_ID), the tasks of a Slurm job step that srun starts
// (SLURM_PROCID, SLURM_STEP_NUM_TASKS > 1, SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE,
// SLURM_STEP_NODELIST; a batch script or a one-task step is a single process) and
// `nmt train --nproc`, which sets torchrun's variables. Torch-free; throws ConfigError naming the
// variable when one is malformed.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace nmt::train {

struct RankPlacement {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        // index on this machine: the CUDA device of a GPU rank
  int local_world_size = 1;  // ranks on this machine: they share its CPU cores
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // Put before every key this job writes to the rendezvous store: "nmt/<TORCHELASTIC_RUN_ID>/
  // attempt_<TORCHELASTIC_RESTART_COUNT>" under torchrun, whose store outlives a restart; "".
  std::string store_prefix;

  bool is_leader() const { return rank == 0; }
};

using Environment = std::function<const char*(const char*)>;

// The placement the environment describes; nullopt outside a launcher (a single process). With
// Slurm, MASTER_ADDR defaults to the first host of the step's nodes and MASTER_PORT to 29500.
std::optional<RankPlacement> placement_from_environment(const Environment& environment);
std::optional<RankPlacement> placement_from_environment();

// The first host of a Slurm node list: "gpu[07-09,12],cpu1" -> "gpu07".
std::string first_slurm_host(const std::string& node_list);

}  // namespace nmt::train
