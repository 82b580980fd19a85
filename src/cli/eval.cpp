// nmt eval: translate a held-out split (or given files) and report BLEU, chrF, loss and perplexity.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "cli/run_dir.h"
#include "cli/scores.h"
#include "nmt/data/batcher.h"
#include "nmt/data/dataset.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/metrics.h"
#include "nmt/train/validation.h"

namespace nmt::cli {
namespace {

struct EvalArgs {
  ModelArgs model;
  std::string split = "test";
  std::string source_file;
  std::string reference_file;
  std::string hypotheses_out;
  bool is_json = false;
  bool is_notebook_form = false;  // score every model in the notebook's cleaned form
};

struct EvalData {
  std::vector<std::string> sources;     // as given to the translator
  bool sources_are_cleaned = false;     // split files hold cleaned text
  std::vector<std::string> references;  // in the form hypotheses are scored against
  std::vector<data::SentencePair> cleaned_pairs;  // for the loss
  std::string description;
};

EvalData load_eval_data(const EvalArgs& args, const LoadedRun& run) {
  EvalData data;
  const text::CleanMode clean = run.config.text.clean;
  if (!args.source_file.empty()) {
    data.sources = read_lines(args.source_file);
    const std::vector<std::string> raw_references = read_lines(args.reference_file);
    if (data.sources.size() != raw_references.size()) {
      throw Error(args.source_file + " has " + std::to_string(data.sources.size()) + " lines but " +
                  args.reference_file + " has " + std::to_string(raw_references.size()));
    }
    for (std::size_t i = 0; i < data.sources.size(); ++i) {
      // Word models are scored in the notebook's cleaned form; subword models on the text as given.
      data.references.push_back(clean == text::CleanMode::kNotebook ? text::clean_notebook(raw_references[i])
                                                                    : raw_references[i]);
      data.cleaned_pairs.push_back({text::clean(data.sources[i], clean), text::clean(raw_references[i], clean)});
    }
    data.description = args.source_file;
    return data;
  }
  const std::string path = run.dir + "/" + args.split + ".tsv";
  data.cleaned_pairs = data::read_pairs(path);
  if (data.cleaned_pairs.empty()) throw DataError(path, "the " + args.split + " split is empty: nothing to evaluate");
  for (const auto& pair : data.cleaned_pairs) {
    data.sources.push_back(pair.source);
    data.references.push_back(pair.target);
  }
  data.sources_are_cleaned = true;
  data.description = args.split + " split of " + run.dir;
  return data;
}

// One line for the evaluations table of the training report.
std::string describe_decoding(const decode::SearchOptions& options) {
  switch (options.strategy) {
    case decode::Strategy::kGreedy:
      return "greedy";
    case decode::Strategy::kBeam:
      return fmt::format("beam {}, length penalty {}", options.beam_size, options.length_penalty);
    case decode::Strategy::kSample:
      return fmt::format("sampling: temperature {}, top-k {}, top-p {}, seed {}", options.temperature,
                         options.top_k, options.top_p, options.seed);
  }
  return "";
}

std::string reference_form(text::CleanMode clean) {
  return clean == text::CleanMode::kNotebook
             ? "hypotheses and references in the notebook's cleaned form (lowercased, punctuation split off)"
             : "hypotheses detokenised, references as raw text (NFKC, whitespace squeezed)";
}

int run_eval(const EvalArgs& args, const ConfigFlags& flags) {
  if (args.source_file.empty() != args.reference_file.empty()) {
    throw ConfigError("--src and --ref: give both or neither");
  }
  if (args.split != "test" && args.split != "valid") {
    throw ConfigError("--split: expected \"test\" or \"valid\", got \"" + args.split + "\"");
  }
  const std::string run_dir = resolve_run_dir(args.model.run_dir);
  const Config config = flags.resolve(read_config_json(run_dir + "/config.json"));
  set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  LoadedRun run = load_run(run_dir, args.model.checkpoint, device);
  run.config = config;
  const EvalData data = load_eval_data(args, run);

  const auto start = std::chrono::steady_clock::now();
  decode::Translator translator(run.model, run.tokenizers, config.text.clean, device);
  const decode::TranslationReport report = data.sources_are_cleaned
                                               ? translator.translate_cleaned(data.sources, config.decode)
                                               : translator.translate(data.sources, config.decode);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::string> hypotheses;
  for (const auto& result : report.results) hypotheses.push_back(result.front().decoded);

  std::vector<std::string> references = data.references;
  if (args.is_notebook_form) {
    for (auto* lines : {&hypotheses, &references}) {
      for (std::string& line : *lines) line = text::clean_notebook(line);
    }
  }
  if (!args.hypotheses_out.empty()) {
    write_file_atomically(args.hypotheses_out, [&hypotheses](std::ostream& out) {
      for (const auto& line : hypotheses) out << line << '\n';
    });
  }
  const Scores scores = score_corpus(hypotheses, {references});
  const data::BatchingOptions batching{config.train.batch_size, config.train.max_tokens, 0, false};
  const train::ValidationResult loss =
      train::evaluate_loss(run.model, data::encode_pairs(data.cleaned_pairs, run.tokenizers), batching,
                           config.train.label_smoothing, device,
                           train::uses_bf16(config.train.precision, device.is_cuda()));

  nlohmann::json result = scores_json(scores);
  result["loss"] = loss.loss;
  result["nll"] = loss.nll;
  result["perplexity"] = std::exp(loss.nll);
  result["sentences"] = hypotheses.size();
  result["data"] = data.description;
  result["checkpoint"] = run.checkpoint;
  const text::CleanMode scored_form = args.is_notebook_form ? text::CleanMode::kNotebook : config.text.clean;
  result["references"] = reference_form(scored_form);
  result["strategy"] = config_to_json(config)["decode"];
  result["sentences_per_s"] = static_cast<double>(hypotheses.size()) / std::max(seconds, 1e-9);
  if (args.is_json) {
    std::cout << result.dump(2) << '\n';
  } else {
    std::cout << scores_text(scores)
              << fmt::format("loss = {:.4f} (label-smoothed, per target token)  perplexity = {:.2f}\n", loss.loss,
                             std::exp(loss.nll))
              << fmt::format("{} sentences of the {} with {} ({:.1f} sentences/s)\n", hypotheses.size(),
                             data.description, run.checkpoint, result["sentences_per_s"].get<double>())
              << "scored: " << reference_form(scored_form) << '\n';
  }
  train::MetricsLog metrics(run_dir + "/metrics.jsonl");
  metrics.write({{"event", "eval"}, {"data", data.description}, {"checkpoint", run.checkpoint},
                 {"decoding", describe_decoding(config.decode)}, {"notebook_form", args.is_notebook_form},
                 {"bleu", scores.bleu.score}, {"chrf", scores.chrf.score}, {"loss", loss.loss},
                 {"perplexity", std::exp(loss.nll)}});
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
  add_model_options(*command, args->model);
  command->add_option("--split", args->split, "test or valid")->capture_default_str();
  command->add_option("--src", args->source_file, "Source sentences instead of a split (needs --ref)")
      ->check(CLI::ExistingFile);
  command->add_option("--ref", args->reference_file, "Reference translations, one per source line")
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", args->hypotheses_out, "Also write the hypotheses, exactly as scored");
  command->add_flag("--json", args->is_json, "Print one JSON object instead of text");
  command->add_flag("--notebook-form", args->is_notebook_form,
                    "Score hypotheses and references after the notebook's cleaning (lowercase, punctuation\n"
                    "split), so that subword and word models are compared on equal terms");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt eval\n"
      "  nmt eval --model runs/seed --split valid --strategy beam --beam-size 5 --json\n"
      "  nmt eval --src news.en --ref news.es --out news.hyp");
  return {command, [args, flags] { return run_eval(*args, *flags); }};
}

}  // namespace nmt::cli
