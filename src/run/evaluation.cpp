#include "nmt/run/evaluation.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "nmt/data/batch_plan.h"
#include "nmt/data/dataset.h"
#include "nmt/decode/translator.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/translation.h"
#include "nmt/text/clean.h"

namespace nmt::run {
namespace {

EvalData load_files(const OpenedRun& run, const EvalOptions& options) {
  EvalData data;
  const text::CleanMode clean = run.config.text.clean;
  data.sources = read_lines(options.source_file);
  const std::vector<std::string> raw_references = read_lines(options.reference_file);
  if (data.sources.size() != raw_references.size()) {
    throw Error(options.source_file + " has " + std::to_string(data.sources.size()) +
                " lines but " + options.reference_file + " has " +
                std::to_string(raw_references.size()));
  }
  for (std::size_t i = 0; i < data.sources.size(); ++i) {
    data.references.push_back(clean == text::CleanMode::kNotebook
                                  ? text::clean_notebook(raw_references[i])
                                  : raw_references[i]);
    data.cleaned_pairs.push_back(
        {text::clean(data.sources[i], clean), text::clean(raw_references[i], clean)});
  }
  data.description = options.source_file;
  return data;
}

EvalData load_split(const OpenedRun& run, const std::string& split) {
  EvalData data;
  const std::string path = run.dir.file(split + ".tsv");
  data.cleaned_pairs = data::read_pairs(path);
  if (data.cleaned_pairs.empty()) {
    throw DataError(path, "the " + split + " split is empty: nothing to evaluate");
  }
  for (const auto& pair : data.cleaned_pairs) {
    data.sources.push_back(pair.source);
    data.references.push_back(pair.target);
  }
  data.sources_are_cleaned = true;
  data.description = split + " split of " + run.dir.path();
  return data;
}

std::string describe_decoding(const decode::SearchOptions& options) {
  switch (options.strategy) {
    case decode::Strategy::kGreedy:
      return "greedy";
    case decode::Strategy::kBeam:
      return fmt::format("beam {}, length penalty {}", options.beam_size, options.length_penalty);
    case decode::Strategy::kSample:
      return fmt::format("sampling: temperature {}, top-k {}, top-p {}, seed {}",
                         options.temperature, options.top_k, options.top_p, options.seed);
  }
  return "";
}

std::string references_form(text::CleanMode clean) {
  return clean == text::CleanMode::kNotebook
             ? "hypotheses and references in the notebook's cleaned form (lowercased, "
               "punctuation split off)"
             : "hypotheses detokenised, references as raw text (NFKC, whitespace squeezed)";
}

// Whitespace words of each source as the user wrote it (see evaluation.h).
std::vector<std::size_t> source_words(const EvalData& data, text::CleanMode clean) {
  const bool is_split_in_notebook_form =
      data.sources_are_cleaned && clean == text::CleanMode::kNotebook;
  std::vector<std::size_t> words;
  words.reserve(data.sources.size());
  for (const std::string& source : data.sources) {
    words.push_back(
        text::count_words(is_split_in_notebook_form ? text::join_punctuation(source) : source));
  }
  return words;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  write_file_atomically(path, [&lines](std::ostream& out) {
    for (const auto& line : lines) out << line << '\n';
  });
}

}  // namespace

void EvalOptions::validate() const {
  if (source_file.empty() != reference_file.empty()) {
    throw ConfigError("--src and --ref: give both or neither");
  }
  if (split != "test" && split != "valid") {
    throw ConfigError("--split: expected \"test\" or \"valid\", got \"" + split + "\"");
  }
  if (split_sentences && source_file.empty()) {
    throw ConfigError(
        "--split-sentences: only with --src (a run's splits hold one cleaned sentence per line)");
  }
}

EvalData load_eval_data(const OpenedRun& run, const EvalOptions& options) {
  return options.source_file.empty() ? load_split(run, options.split) : load_files(run, options);
}

EvalReport evaluate(OpenedRun& run, const EvalData& data, const EvalOptions& options) {
  const Config& config = run.config;
  EvalReport report;
  const auto start = std::chrono::steady_clock::now();
  decode::Translator translator(run.models(), run.tokenizers, config.text.clean, run.device);
  decode::TranslationReport translations;
  if (data.sources_are_cleaned) {
    translations = translator.translate_cleaned(data.sources, config.decode);
  } else if (options.split_sentences) {
    translations = translate_texts(translator, data.sources,
                                   {sentence_splitter(run, true).get(), nullptr}, config.decode);
  } else {
    translations = translator.translate(data.sources, config.decode);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& result : translations.results) {
    report.hypotheses.push_back(result.front().decoded);
  }

  std::vector<std::string> references = data.references;
  if (options.is_notebook_form) {
    for (auto* lines : {&report.hypotheses, &references}) {
      for (std::string& line : *lines) line = text::clean_notebook(line);
    }
  }
  if (!options.hypotheses_out.empty()) write_lines(options.hypotheses_out, report.hypotheses);
  report.scores = eval::score_corpus(report.hypotheses, {references});
  report.by_source_length = eval::score_by_source_length(source_words(data, config.text.clean),
                                                         report.hypotheses, {references});
  const data::BatchingOptions batching{config.train.batch_size, config.train.max_tokens, 0,
                                       /*shuffle=*/false};
  report.loss =
      train::evaluate_loss(run.model, data::encode_pairs(data.cleaned_pairs, run.tokenizers),
                           batching, config.train.label_smoothing, run.device,
                           train::uses_bf16(config.train.precision, run.device.is_cuda()));

  report.data = data.description;
  report.checkpoint = run.checkpoints();
  report.is_notebook_form = options.is_notebook_form;
  report.references_form =
      references_form(options.is_notebook_form ? text::CleanMode::kNotebook : config.text.clean);
  report.decoding = describe_decoding(config.decode);
  report.decode_options = config_to_json(config)["decode"];
  report.sentences_per_s = static_cast<double>(report.hypotheses.size()) / std::max(seconds, 1e-9);
  try {
    MetricsLog(run.dir.metrics()).write(eval_record(report));
  } catch (const Error& error) {
    // A run on a read-only share, or someone else's: the scores stand without the record.
    report.unrecorded_reason = error.what();
  }
  return report;
}

nlohmann::json eval_report_json(const EvalReport& report) {
  nlohmann::json result = eval::scores_json(report.scores);
  result["by_source_length"] = eval::length_buckets_json(report.by_source_length);
  result["loss"] = report.loss.loss;
  result["nll"] = report.loss.nll;
  result["perplexity"] = std::exp(report.loss.nll);
  result["sentences"] = report.hypotheses.size();
  result["data"] = report.data;
  result["checkpoint"] = report.checkpoint;
  result["references"] = report.references_form;
  result["strategy"] = report.decode_options;
  result["sentences_per_s"] = report.sentences_per_s;
  return result;
}

std::string eval_report_text(const EvalReport& report) {
  return eval::scores_text(report.scores) + eval::length_buckets_text(report.by_source_length) +
         fmt::format("loss = {:.4f} (label-smoothed, per target token)  perplexity = {:.2f}\n",
                     report.loss.loss, std::exp(report.loss.nll)) +
         fmt::format("{} sentences of the {} with {} ({:.1f} sentences/s)\n",
                     report.hypotheses.size(), report.data, report.checkpoint,
                     report.sentences_per_s) +
         "scored: " + report.references_form + '\n';
}

EvalRecord eval_record(const EvalReport& report) {
  EvalRecord record;
  record.data = report.data;
  record.checkpoint = report.checkpoint;
  record.decoding = report.decoding;
  record.notebook_form = report.is_notebook_form;
  record.bleu = report.scores.bleu.score;
  record.chrf = report.scores.chrf.score;
  record.loss = report.loss.loss;
  record.perplexity = std::exp(report.loss.nll);
  record.bleu_signature = report.scores.bleu.signature;
  record.chrf_signature = report.scores.chrf.signature;
  for (const eval::LengthBucket& bucket : report.by_source_length) {
    LengthScore score{bucket.label(), static_cast<int64_t>(bucket.sentences), std::nullopt,
                      std::nullopt};
    if (bucket.scores) {
      score.bleu = bucket.scores->bleu.score;
      score.chrf = bucket.scores->chrf.score;
    }
    record.by_source_length.push_back(std::move(score));
  }
  return record;
}

}  // namespace nmt::run
