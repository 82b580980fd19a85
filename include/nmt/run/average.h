// `nmt average`: the mean of several checkpoints' weights written as one weights-only checkpoint
// that translate, eval, serve and export take with --checkpoint (Vaswani et al. 2017, 6.1:
// averaging the last checkpoints; fairseq's average_checkpoints.py, OpenNMT-py's average_models).
// The trainer writes averaged.pt this way from its last train.average_last epochs; this lets a user
// choose other files and another count afterwards (train.keep_epochs keeps more epochs to choose
// from). Throws ConfigError (exit 2) for a missing run, too few or repeated checkpoints, or an
// output that exists or is one of the inputs; CheckpointError for a checkpoint that is missing or
// does not fit the run's model. The output is written to "<out>.tmp" and renamed, so a failure
// never leaves a partial file; never logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/run_dir.h"

namespace nmt::run {

struct AverageRequest {
  std::string run_dir;  // empty: runs/latest
  // Checkpoints to average: paths, or names of files in the run (epoch-12.pt).
  std::vector<std::string> checkpoints;
  // Instead of checkpoints: the run's last N epoch-K.pt files (the trainer keeps the last
  // max(train.average_last, train.keep_epochs) of them).
  int64_t last = 0;
  std::string out;         // the file to write
  bool is_forced = false;  // replace out if it exists
};

struct AverageReport {
  std::vector<std::string> inputs;  // the checkpoints averaged, oldest epoch first for --last
  std::string out;
  int64_t parameters = 0;
  int64_t step = 0;  // the training step of the last input, recorded in out
};

AverageReport average_checkpoints(const AverageRequest& request);

// The run's epoch-K.pt files, by K ascending.
std::vector<std::string> epoch_checkpoints(const RunDir& run);

// The paths' file names without their directories, joined by separator: "epoch-1.pt, epoch-2.pt".
std::string file_names(const std::vector<std::string>& paths, const std::string& separator);

}  // namespace nmt::run
