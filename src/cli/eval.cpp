// nmt eval: translate a held-out split (or given files) and report BLEU, chrF, loss and perplexity.
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/run/evaluation.h"

namespace nmt::cli {
namespace {

struct EvalArgs {
  run::RunRequest model;
  run::EvalOptions options;
  bool is_json = false;
};

int run_eval(const EvalArgs& args, const ConfigFlags& flags) {
  args.options.validate();
  run::OpenedRun opened = run::open_run(args.model, flags.overrides());
  const run::EvalReport report =
      run::evaluate(opened, run::load_eval_data(opened, args.options), args.options);
  if (args.is_json) {
    std::cout << run::eval_report_json(report).dump(2) << '\n';
  } else {
    std::cout << run::eval_report_text(report);
  }
  if (!report.unrecorded_reason.empty()) {
    spdlog::warn("the scores were not recorded in the run: {}", report.unrecorded_reason);
  }
  return 0;
}

}  // namespace

Command add_eval(CLI::App& app) {
  auto* command = app.add_subcommand(
      "eval",
      "Translate the run's held-out split (default: test) or the given files and report\n"
      "sacreBLEU-compatible BLEU and chrF with their signatures, and the teacher-forced loss and\n"
      "perplexity. Word models are scored in the notebook's cleaned form (references cleaned like\n"
      "the training data); subword models on detokenised text against the raw references.");
  auto args = std::make_shared<EvalArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  run::EvalOptions& options = args->options;
  add_ensemble_model_options(*command, args->model);
  command->add_option("--split", options.split, "test or valid")->capture_default_str();
  command
      ->add_option("--src", options.source_file,
                   "Source sentences instead of a split (needs --ref)")
      ->check(CLI::ExistingFile);
  command
      ->add_option("--ref", options.reference_file, "Reference translations, one per source line")
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", options.hypotheses_out,
                      "Also write the hypotheses, exactly as scored");
  command->add_flag("--split-sentences", options.split_sentences,
                    "With --src: cut each line into sentences and translate them one by one (for\n"
                    "lines that hold several sentences, e.g. paragraphs); off by default");
  command->add_flag("--json", args->is_json, "Print one JSON object instead of text");
  command->add_flag(
      "--notebook-form", options.is_notebook_form,
      "Score hypotheses and references after the notebook's cleaning (lowercase, punctuation\n"
      "split), so that subword and word models are compared on equal terms");
  add_decode_flags(*flags);
  add_target_language_flag(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt eval\n"
      "  nmt eval --model runs/seed --split valid --strategy beam --beam-size 5 --json\n"
      "  nmt eval --src news.en --ref news.es --out news.hyp\n"
      "  nmt eval --model runs/a --model runs/b --model runs/c   (an ensemble of three runs)");
  return {command, [args, flags] { return run_eval(*args, *flags); }};
}

}  // namespace nmt::cli
