#include "export/model_card.h"

#include <filesystem>
#include <optional>
#include <set>
#include <variant>

#include "export/huggingface_weights.h"
#include "nmt/format.h"
#include "nmt/metrics_jsonl.h"

namespace nmt::exporter::detail {
namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string front_matter(const Config& config, const CardFacts& facts) {
  std::string text = "---\ntags:\n- translation\n- ";
  text += facts.model_class == "MarianMTModel" ? "marian" : "pegasus";
  text += "\n- nmt\nlibrary_name: transformers\npipeline_tag: translation\n";
  if (!config.data.source_lang.empty() && !config.data.target_lang.empty()) {
    text += "language:\n- " + config.data.source_lang + "\n- " + config.data.target_lang + "\n";
  }
  return text + "---\n\n";
}

std::string description(const run::OpenedRun& opened, const CardFacts& facts) {
  const Config& config = opened.config;
  const model::TransformerOptions& options = config.model;
  const auto language = [](const std::string& code) { return code.empty() ? "?" : code; };
  std::string text = "# " + facts.name + "\n\n";
  text += "A " + facts.model_class + " (" + language(config.data.source_lang) + " to " +
          language(config.data.target_lang) + ") exported by nmt from the run `" +
          opened.dir.path() + "` (weights `" + file_name(opened.checkpoint) + "`).\n\n";
  text += "- " + std::to_string(facts.parameters) + " parameters: d_model " +
          std::to_string(options.d_model) + ", " + std::to_string(options.encoder_depth()) + "+" +
          std::to_string(options.decoder_depth()) + " layers (" +
          (options.norm == model::NormPosition::kPre ? "pre-norm" : "post-norm") + "), " +
          std::to_string(options.heads) + " heads, feed-forward " +
          std::to_string(options.ff_mult * options.d_model) + ", " +
          transformers_activation(options.activation) + "\n";
  text += "- vocabularies: " + std::to_string(opened.model->source_vocab()) + " source, " +
          std::to_string(opened.model->target_vocab()) + " target pieces (SentencePiece" +
          (facts.is_marian_form ? "" : ", one tokenizer.json for both languages") + ")\n";
  if (!facts.is_marian_form) {
    text +=
        "- text: the tokenizer applies nmt's cleaning (Unicode NFKC, whitespace runs squeezed, "
        "ends trimmed) and adds no </s> to the source, as nmt trained it\n";
  }
  return text +
         "- decoding (generation_config.json): as the run's `decode` section; `generate()` gives "
         "the translations `nmt translate` gives\n\n";
}

// The last eval record of these weights on the run's test split.
std::optional<EvalRecord> test_scores(const run::OpenedRun& opened, const MetricsFile& metrics) {
  std::optional<EvalRecord> found;
  for (const MetricsRecord& record : metrics.records) {
    const auto* eval = std::get_if<EvalRecord>(&record);
    if (eval != nullptr && eval->data.rfind("test split of ", 0) == 0 &&
        file_name(eval->checkpoint) == file_name(opened.checkpoint) && !eval->notebook_form) {
      found = *eval;
    }
  }
  return found;
}

}  // namespace

std::string scores_section(const run::OpenedRun& opened, const MetricsFile& metrics) {
  std::string text = "## Scores\n\n";
  const std::optional<EvalRecord> scores = test_scores(opened, metrics);
  if (!scores) {
    return text +
           "No `nmt eval` of these weights on the run's test split is recorded in the "
           "run; `nmt eval --model RUN` before exporting puts its scores here.\n\n";
  }
  text += "On the run's held-out test split, decoded by nmt (" + scores->decoding + "):\n\n";
  text += "| BLEU | chrF |\n| ---: | ---: |\n| " + format_number(scores->bleu, 4) + " | " +
          format_number(scores->chrf, 4) + " |\n\n";
  if (scores->bleu_signature && scores->chrf_signature) {
    text += "sacreBLEU signatures: BLEU `" + *scores->bleu_signature + "`, chrF `" +
            *scores->chrf_signature + "`.\n\n";
  }
  return text;
}

std::string training_section(const Config& config, const MetricsFile& metrics) {
  std::optional<StartRecord> first_start;
  std::set<std::string> hardware;
  std::optional<EndRecord> end;
  for (const MetricsRecord& record : metrics.records) {
    if (const auto* start = std::get_if<StartRecord>(&record)) {
      if (!first_start) first_start = *start;
      hardware.insert(start->device + (start->processor ? " (" + *start->processor + ")" : ""));
    } else if (const auto* stop = std::get_if<EndRecord>(&record)) {
      end = *stop;
    }
  }
  std::string text = "## Training\n\n- data: `" + file_name(config.data.path) + "`";
  if (first_start) {
    text += ", " + std::to_string(first_start->train_pairs) + " training and " +
            std::to_string(first_start->valid_pairs) + " validation pairs";
  }
  text += "\n";
  if (end) {
    text += "- " + format_duration(end->train_seconds) + " of training, " +
            std::to_string(end->step) + " updates, " + std::to_string(end->epoch) +
            " epochs: " + end->message + "\n";
  }
  for (const std::string& machine : hardware) text += "- on " + machine + "\n";
  return text + "\n";
}

std::string huggingface_model_card(const run::OpenedRun& opened, const CardFacts& facts) {
  const MetricsFile metrics = read_metrics(opened.dir.metrics());
  return front_matter(opened.config, facts) + description(opened, facts) +
         scores_section(opened, metrics) + training_section(opened.config, metrics) +
         "## Use\n\n```python\nfrom transformers import AutoModelForSeq2SeqLM, AutoTokenizer\n\n"
         "tokenizer = AutoTokenizer.from_pretrained(\"" +
         facts.name +
         "\")\n"
         "model = AutoModelForSeq2SeqLM.from_pretrained(\"" +
         facts.name +
         "\")\n"
         "batch = tokenizer([\"I am hungry.\"], return_tensors=\"pt\", padding=True)\n"
         "print(tokenizer.batch_decode(model.generate(**batch), skip_special_tokens=True))\n```\n";
}

}  // namespace nmt::exporter::detail
