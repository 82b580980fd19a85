// nmt translate: sentences from the arguments or stdin, one translation per line.
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "cli/run_dir.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"

namespace nmt::cli {
namespace {

struct TranslateArgs {
  ModelArgs model;
  std::vector<std::string> sentences;
  bool show_scores = false;
};

// Lines read and translated together from stdin, so that output starts before the input ends.
constexpr std::size_t kStdinChunk = 2000;

void print(const decode::TranslationReport& report, std::size_t first_index, bool show_scores) {
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const auto& hypotheses = report.results[i];
    if (hypotheses.size() > 1) {  // Moses n-best format
      for (const auto& hypothesis : hypotheses) {
        std::cout << first_index + i << " ||| " << hypothesis.text << " ||| " << hypothesis.score << '\n';
      }
    } else if (show_scores) {
      std::cout << hypotheses.front().score << '\t' << hypotheses.front().text << '\n';
    } else {
      std::cout << hypotheses.front().text << '\n';
    }
  }
  std::cout.flush();
}

int run_translate(const TranslateArgs& args, const ConfigFlags& flags) {
  const std::string run_dir = resolve_run_dir(args.model.run_dir);
  const Config config = flags.resolve(read_config_json(run_dir + "/config.json"));
  set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  LoadedRun run = load_run(run_dir, args.model.checkpoint, device);
  spdlog::debug("translating with {} on {}", run.checkpoint, describe_device(device));
  decode::Translator translator(run.model, run.tokenizers, config.text.clean, device);

  int64_t truncated = 0;
  if (!args.sentences.empty()) {
    const auto report = translator.translate(args.sentences, config.decode);
    truncated += report.truncated_inputs;
    print(report, 0, args.show_scores);
  } else {
    std::vector<std::string> lines;
    std::string line;
    std::size_t done = 0;
    auto flush = [&] {
      const auto report = translator.translate(lines, config.decode);
      truncated += report.truncated_inputs;
      print(report, done, args.show_scores);
      done += lines.size();
      lines.clear();
    };
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
      if (lines.size() == kStdinChunk) flush();
    }
    if (!lines.empty()) flush();
  }
  if (truncated > 0) {
    spdlog::warn("{} inputs were longer than {} tokens and were cut to that length", truncated,
                 decode::kMaxInputTokens);
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
  add_model_options(*command, args->model);
  command->add_option("sentences", args->sentences, "Sentences to translate (default: read stdin)");
  command->add_flag("--scores", args->show_scores, "Print the log-probability before each translation");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt translate \"I am hungry\"\n"
      "  nmt translate --strategy beam --beam-size 5 < sentences.txt > translations.txt\n"
      "  nmt translate --strategy sample --temperature 0.8 --top-p 0.9 --seed 1 \"Where is the station?\"\n"
      "  nmt translate --strategy beam --n-best 3 \"Good morning\"   (Moses n-best: index ||| text ||| score)");
  return {command, [args, flags] { return run_translate(*args, *flags); }};
}

}  // namespace nmt::cli
