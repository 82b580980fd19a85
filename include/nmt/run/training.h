// `nmt train` as a library call: a fresh run (data phase into the run directory, then training)
// or a resumed one (the run's own config.json and split, checkpoint.pt), runs/latest pointed at
// it, and report.html written when training ends. Logs the data phase, the model and progress.
// Throws ConfigError for a bad configuration or --out, CheckpointError when there is nothing to
// resume, DataError for unusable data.
#pragma once

#include <string>

#include "nmt/config.h"
#include "nmt/run_dir.h"
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

// Trains until the configuration's end, early stopping, divergence, or SIGINT/SIGTERM during
// training (then checkpoint.pt is saved at the current batch); logs the outcome in one line.
TrainOutcome train_run(const TrainRequest& request);

// The process exit status of an outcome: 0 finished (also early or at max_steps), 130
// interrupted (checkpoint saved), 1 diverged.
int exit_status(train::StopReason reason);

// runs/<config file's stem>-<local date>-<time>.
std::string default_run_dir(const std::string& config_path);

}  // namespace nmt::run
