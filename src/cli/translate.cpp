// nmt translate: sentences from the arguments or stdin, one translation per line.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/device.h"
#include "nmt/run/translation.h"

namespace nmt::cli {
namespace {

struct TranslateArgs {
  run::RunRequest model;
  std::vector<std::string> sentences;
  bool show_scores = false;
};

int run_translate(const TranslateArgs& args, const ConfigFlags& flags) {
  run::OpenedRun opened = run::open_run(args.model, flags.overrides());
  spdlog::debug("translating with {} on {}", opened.checkpoint, describe_device(opened.device));
  const run::TranslateSummary summary =
      args.sentences.empty()
          ? run::translate_stream(opened, STDIN_FILENO, std::cout, args.show_scores)
          : run::translate_sentences(opened, args.sentences, std::cout, args.show_scores);
  if (summary.truncated_inputs > 0) {
    spdlog::warn("{} inputs were longer than {} tokens and were cut to that length",
                 summary.truncated_inputs, decode::kMaxInputTokens);
  }
  if (summary.is_interrupted) {
    spdlog::warn("interrupted: the {} lines read were translated", summary.inputs);
    return 130;
  }
  return 0;
}

}  // namespace

Command add_translate(CLI::App& app) {
  auto* command = app.add_subcommand(
      "translate",
      "Translate sentences with a trained run. Sentences come from the arguments, or from stdin\n"
      "one per line, with exactly one output line per input line (an empty line gives an empty\n"
      "line). Unknown words become <UNK>; inputs over 1024 tokens are cut to 1024.\n"
      "Decoding defaults come from the run's config (decode section).");
  auto args = std::make_shared<TranslateArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_ensemble_model_options(*command, args->model);
  command->add_option("sentences", args->sentences, "Sentences to translate (default: read stdin)");
  command->add_flag("--scores", args->show_scores,
                    "Print the log-probability before each translation");
  add_decode_flags(*flags);
  add_target_language_flag(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt translate \"I am hungry\"\n"
      "  nmt translate --strategy beam --beam-size 5 < sentences.txt > translations.txt\n"
      "  nmt translate --strategy sample --temperature 0.8 --top-p 0.9 --seed 1 \"Where is the "
      "station?\"\n"
      "  nmt translate --strategy beam --n-best 3 \"Good morning\"   (Moses n-best: index ||| text "
      "||| score)");
  return {command, [args, flags] { return run_translate(*args, *flags); }};
}

}  // namespace nmt::cli
