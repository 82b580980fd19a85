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
  run::OutputOptions output;
  bool no_split = false;
  bool no_sentence_case = false;
  std::string format = "text";
};

int run_translate(const TranslateArgs& args, const ConfigFlags& flags) {
  run::OpenedRun opened = run::open_run(args.model, flags.overrides());
  spdlog::debug("translating with {} on {}", opened.checkpoint, describe_device(opened.device));
  run::OutputOptions output = args.output;
  output.split_sentences = !args.no_split;
  output.sentence_case = !args.no_sentence_case;
  output.is_html = args.format == "html";
  run::TranslateSummary summary;
  if (output.is_html) {
    summary = args.sentences.empty()
                  ? run::translate_html_stream(opened, STDIN_FILENO, std::cout, output)
                  : run::translate_html(opened, args.sentences, std::cout, output);
  } else if (args.sentences.empty()) {
    summary = run::translate_stream(opened, STDIN_FILENO, std::cout, output);
  } else {
    summary = run::translate_sentences(opened, args.sentences, std::cout, output);
  }
  if (summary.truncated_inputs > 0) {
    spdlog::warn("{} sentences were longer than {} tokens and were cut to that length",
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
      "Translate text with a trained run. Texts come from the arguments, or from stdin one per\n"
      "line, with exactly one output line per input line (an empty line gives an empty line).\n"
      "Each text is cut into sentences (ICU's rules with the abbreviations of the run's\n"
      "data.source_lang) and translated sentence by sentence, its spacing kept; --no-split\n"
      "translates each text as one sentence. A sentence written all in capitals or all in lower\n"
      "case is read in sentence case, and one in capitals is answered in capitals.\n"
      "Unknown words become <UNK>; sentences over 1024\n"
      "tokens are cut to 1024. Decoding defaults come from the run's config (decode section).");
  auto args = std::make_shared<TranslateArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_ensemble_model_options(*command, args->model);
  command->add_option("sentences", args->sentences, "Texts to translate (default: read stdin)");
  command->add_flag("--scores", args->output.show_scores,
                    "Print the log-probability before each translation (a text's: the sum of its "
                    "sentences')");
  command
      ->add_option("--format", args->format,
                   "text: one text per line or argument; html: each argument, or all of stdin, "
                   "is an HTML fragment or document whose text is translated and markup kept "
                   "(not the text of script, style, code, pre or translate=\"no\")")
      ->check(CLI::IsMember({"text", "html"}))
      ->capture_default_str();
  command->add_flag("--no-split", args->no_split,
                    "Translate each input as one sentence, without cutting it into sentences (for "
                    "input that has one sentence per line already)");
  command->add_flag("--no-sentence-case", args->no_sentence_case,
                    "Give the model sentences in capitals or in lower case as they are written, "
                    "not in sentence case (for a model trained on such text)");
  add_decode_flags(*flags);
  add_target_language_flag(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt translate \"I am hungry\"\n"
      "  nmt translate \"I'll give it back. The shop is closed.\"   (two sentences, one line)\n"
      "  nmt translate --strategy beam --beam-size 5 < sentences.txt > translations.txt\n"
      "  nmt translate --format html < page.html > pagina.html\n"
      "  nmt translate --strategy sample --temperature 0.8 --top-p 0.9 --seed 1 \"Where is the "
      "station?\"\n"
      "  nmt translate --strategy beam --n-best 3 \"Good morning\"   (Moses n-best: index ||| text "
      "||| score)");
  return {command, [args, flags] { return run_translate(*args, *flags); }};
}

}  // namespace nmt::cli
