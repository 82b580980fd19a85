// Flag groups shared by several subcommands; each flag overrides the config key it names.
#pragma once

#include "cli/config_flags.h"
#include "nmt/run/open_run.h"

namespace nmt::cli {

// --device, --threads (runtime.device, runtime.threads: where a command that does not train runs
// its models).
void add_runtime_flags(ConfigFlags& flags);

// --device, --threads (train.device, train.threads: where training runs).
void add_training_runtime_flags(ConfigFlags& flags);

// --strategy, --beam-size, --beam-stop, --length-penalty, --n-best, --temperature, --top-k,
// --top-p, --seed, --max-len, --batch-size, --translators, --decode-threads, --precision (the
// decode section).
void add_decode_flags(ConfigFlags& flags);

// --target-lang (decode.target_lang: a multi-target model's output language). Not serve's, whose
// --target-lang names the run's language code and whose requests choose their own.
void add_target_language_flag(ConfigFlags& flags);

// --model RUN and --checkpoint NAME.
void add_model_options(CLI::App& command, run::RunRequest& request);

// Like add_model_options, with --model repeatable: several runs translate as an ensemble.
void add_ensemble_model_options(CLI::App& command, run::RunRequest& request);
// Like add_ensemble_model_options for a command that takes one run and says why when given more
// (the library refuses request.ensemble_dirs): nmt export.
void add_ensemble_refused_model_options(CLI::App& command, run::RunRequest& request);

}  // namespace nmt::cli
