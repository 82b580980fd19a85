// Opening a trained run for use: what translate, eval, attention and bench translate share. The
// run directory is resolved (--model, else runs/latest), its config.json read once with the
// command's overrides applied, LibTorch's threads set, the device picked, and the tokenizers and
// weights (in eval mode) loaded onto it.
// Throws ConfigError (exit 2) for a missing run or a bad override, CheckpointError for missing or
// mismatched weights, DataError for damaged tokenizer files; never logs.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/model/transformer.h"
#include "nmt/run/config.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"

namespace nmt::run {

// Which run and which of its weights (the --model and --checkpoint flags).
struct RunRequest {
  std::string run_dir;     // empty: runs/latest
  std::string checkpoint;  // empty: averaged.pt, else best.pt, else checkpoint.pt
  // Further runs that translate together with run_dir as an ensemble (--model given again); each
  // uses its default checkpoint and must have the same vocabularies and cleaning.
  std::vector<std::string> ensemble_dirs;
};

// A trained model ready to use.
struct OpenedRun {
  RunDir dir{""};
  std::string checkpoint;  // the file the weights came from
  Config config;           // config.json with the overrides applied
  text::TokenizerPair tokenizers;
  model::Transformer model{nullptr};
  std::vector<model::Transformer> ensemble;  // the further models of an ensemble, if any
  std::vector<std::string> ensemble_checkpoints;
  c10::Device device{c10::kCPU};
  int64_t threads = 0;  // CPU threads set

  // model followed by the ensemble's further models.
  std::vector<model::Transformer> models() const;
  // checkpoint followed by ensemble_checkpoints: the file of each of models().
  std::vector<std::string> checkpoint_files() const;
  // checkpoint_files() joined by " + ".
  std::string checkpoints() const;
};

// The run directory for --model (or the command's `flag`): the given one, or runs/latest.
RunDir resolve_run_dir(const std::string& requested, const std::string& flag = "--model");

// The weights to use: `name` (a path, or a file of the run) when given, else the first of
// averaged.pt, best.pt and checkpoint.pt that exists.
std::string pick_checkpoint(const RunDir& run, const std::string& name);

OpenedRun open_run(const RunRequest& request, const ConfigOverrides& overrides);

// Points runs/latest at run (a relative link when run is inside runs/), replacing the link in one
// step, so processes doing it at the same time each leave a whole link. Throws
// std::filesystem::filesystem_error when runs/latest cannot be replaced (e.g. it is a directory).
void update_latest_link(const RunDir& run);

}  // namespace nmt::run
