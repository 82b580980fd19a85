// Flag groups shared by several subcommands; each flag overrides the config key it names.
#pragma once

#include "cli/config_flags.h"

namespace nmt::cli {

// --device, --threads (train.device, train.threads: where any model runs).
void add_runtime_flags(ConfigFlags& flags);

// --strategy, --beam-size, --length-penalty, --n-best, --temperature, --top-k, --top-p, --seed,
// --max-len, --batch-size (the decode section).
void add_decode_flags(ConfigFlags& flags);

// --model RUN and --checkpoint NAME.
struct ModelArgs {
  std::string run_dir;     // empty: runs/latest
  std::string checkpoint;  // empty: averaged.pt, best.pt, checkpoint.pt, the first that exists
};
void add_model_options(CLI::App& command, ModelArgs& args);

}  // namespace nmt::cli
