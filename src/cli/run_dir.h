// Run directories: where `nmt train` writes and where translate/eval/attention/report read.
// RUN holds config.json, the splits, the tokenizer files, checkpoint.pt, best.pt, averaged.pt
// (when averaging helped) and metrics.jsonl; runs/latest points at the newest run.
#pragma once

#include <string>

#include <c10/core/Device.h>

#include "nmt/config.h"
#include "nmt/model/transformer.h"
#include "nmt/text/tokenizer.h"

namespace nmt::cli {

inline constexpr const char* kLatestRunLink = "runs/latest";

// A trained model ready to use.
struct LoadedRun {
  std::string dir;
  std::string checkpoint;  // the file the weights came from
  Config config;
  text::TokenizerPair tokenizers;
  model::Transformer model{nullptr};
  c10::Device device{c10::kCPU};
};

// The run directory for --model: the given one, or runs/latest. Throws ConfigError when there is none.
std::string resolve_run_dir(const std::string& requested);

// The checkpoint to translate with: `name` when given, else averaged.pt, best.pt or checkpoint.pt,
// whichever exists first. Throws CheckpointError when none does.
std::string pick_checkpoint(const std::string& run_dir, const std::string& name);

// Loads config, tokenizers and weights (in eval mode) onto device.
LoadedRun load_run(const std::string& run_dir, const std::string& checkpoint_name, const c10::Device& device);

// Points runs/latest at run_dir (a relative link when run_dir is inside runs/).
void update_latest_link(const std::string& run_dir);

}  // namespace nmt::cli
