// `nmt train` as a library call: a fresh run (config.json, the data phase into the run directory,
// then training) or a resumed one (the run's own config.json and split, checkpoint.pt; a run
// stopped during its data phase prepares it again), runs/latest pointed at it, and report.html
// written when training ends. Logs the data phase, the model and progress. Throws ConfigError for
// a bad configuration or --out, CheckpointError when there is nothing to resume, DataError for
// unusable data, Interrupted for a signal before training.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "nmt/run/config.h"
#include "nmt/model/transformer.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"
#include "nmt/train/communicator.h"
#include "nmt/train/placement.h"
#include "nmt/train/trainer.h"

namespace nmt::run {

struct TrainRequest {
  std::string config_path;    // the configuration of a fresh run (required unless resuming)
  std::string run_dir;        // empty: runs/<config name>-<date>-<time>, or runs/latest to resume
  bool is_resume = false;     // continue run_dir from its checkpoint.pt
  ConfigOverrides overrides;  // flags; applied to the run's config.json too when resuming
  bool is_terminal = false;   // progress as a redrawn status line
};

struct TrainOutcome {
  RunDir run{""};
  train::TrainResult result;
};

// Trains until the configuration's end, early stopping, the time budget (train.max_time),
// divergence, or SIGINT/SIGTERM (handled from the first moment, nmt/run/stop_signal.h): during
// training checkpoint.pt is saved at the current batch; before it (joining a job, the data phase,
// loading a checkpoint) the process ends at once with status 130, or Interrupted is thrown, and
// `--resume` goes on from the run's files: config.json is written before the data phase,
// prepare.json after it. Logs the outcome in one line.
TrainOutcome train_run(const TrainRequest& request);

// The process exit status of an outcome: 0 finished (also early, at max_steps or at the end of
// the time budget), 130 interrupted (checkpoint saved), 1 diverged.
int exit_status(train::StopReason reason);

// When a launcher's environment (torchrun, Slurm, --nproc) makes this process a rank of a job:
// joins the others through c10d (blocking until all have come or the timeout passes); null
// otherwise. Ranks other than 0 log warnings and errors only.
std::shared_ptr<train::Communicator> join_job(const Config& config);
// A rank's device: CUDA ranks take the GPU of their local rank (a ConfigError naming train.device
// when the machine has fewer GPUs than local ranks); CPU ranks the CPU.
c10::Device rank_device(const Config& config, const train::RankPlacement& placement);
// A rank's CPU threads: the configured number, or an equal share of this machine's cores.
int64_t rank_threads(int64_t configured, const train::RankPlacement& placement);

// Rank 0 runs `lead`, which prepares a directory (a run, a benchmark's data) and returns its path,
// and publishes the path, or lead's error, to the other ranks; they get the path or an Error
// saying that rank 0 could not `task`. Returns the path on every rank.
std::string directory_from_leader(train::Communicator& communicator,
                                  const std::string& task,
                                  const std::function<std::string()>& lead);

// What a training process starts from, set up alike by `nmt train` and `nmt bench train`.
struct TrainingStart {
  c10::Device device{c10::kCPU};
  int64_t threads = 0;  // CPU threads set
  model::Transformer model{nullptr};
};

// This process's (or rank's) threads and device, the generator seeded with train.seed, and the
// model built on the device (refused with advice when its training state cannot fit in memory)
// and, with parent_weights, started from that checkpoint's weights (fine-tuning). Logs the model.
TrainingStart start_training(const Config& config,
                             const text::TokenizerPair& tokenizers,
                             const train::Communicator* communicator,
                             const std::string& parent_weights);

// runs/<config file's stem>-<local date>-<time>.
std::string default_run_dir(const std::string& config_path);

}  // namespace nmt::run
