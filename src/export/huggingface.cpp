#include "nmt/export/huggingface.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "export/export_dir.h"
#include "export/huggingface_tokenizer.h"
#include "export/huggingface_weights.h"
#include "export/model_card.h"
#include "nmt/decode/translator.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::exporter {
namespace {

using nlohmann::json;

// How a run goes out: the transformers architecture, its tokenizer and its ids.
struct Plan {
  // Marian's form (nmt import --format marian, its fine-tunings): MarianTokenizer and its ids.
  bool is_marian_form = false;
  // Pre-norm layers with a final norm on each stack: Pegasus; post-norm: Marian.
  bool is_pegasus = false;

  // transformers' max_position_embeddings: the rows of its sinusoid table, so the longest source
  // and output it takes. OPUS-MT's 512 for Marian's form; nmt's input limit otherwise.
  int64_t max_positions() const { return is_marian_form ? 512 : decode::kMaxInputTokens; }
  // The exported ids of <pad>, </s> and the decoder start: huggingface_id's for Marian's form,
  // nmt's own otherwise.
  int64_t pad() const { return is_marian_form ? huggingface_id(text::kPadId) : text::kPadId; }
  int64_t eos() const { return is_marian_form ? huggingface_id(text::kEosId) : text::kEosId; }
  int64_t decoder_start() const {
    return is_marian_form ? huggingface_id(text::kSosId) : text::kSosId;
  }
  const char* model_class() const {
    return is_pegasus ? "PegasusForConditionalGeneration" : "MarianMTModel";
  }
};

// Files an export writes: the only ones --force may replace.
const std::vector<std::string> kHuggingfaceFiles = {
    "model.safetensors", "config.json", "generation_config.json", "tokenizer_config.json",
    "tokenizer.json",    "vocab.json",  "target_vocab.json",      "source.spm",
    "target.spm",        "README.md"};

// The run's plan, or the setting that keeps it from transformers.
Plan plan_export(const detail::RunSettings& run) {
  const Config& config = run.config;
  if (config.text.tokenizer == text::TokenizerKind::kMarian) {
    if (config.model.norm != model::NormPosition::kPost) {
      throw detail::unexportable(run.dir, "transformers",
                                 "a run with Marian's tokenisation goes out as a MarianMTModel, "
                                 "which is post-norm, and it is pre-norm (model.norm \"pre\")");
    }
    if (config.model.positions != model::PositionLayout::kSplit) {
      throw detail::unexportable(run.dir, "transformers",
                                 "a run with Marian's tokenisation goes out with Marian's "
                                 "positions, and its sinusoid positions are interleaved "
                                 "(model.positions \"interleaved\")");
    }
    return {true, false};
  }
  if (config.text.tokenizer == text::TokenizerKind::kWord) {
    throw detail::unexportable(run.dir, "transformers",
                               "it has word vocabularies (text.tokenizer \"word\"), no "
                               "SentencePiece model, and no transformers tokenizer splits text as "
                               "nmt's word tokenizer does; train with text.tokenizer "
                               "\"sentencepiece\"");
  }
  if (config.text.clean != text::CleanMode::kNormalize) {
    throw detail::unexportable(run.dir, "transformers",
                               "its text.clean is \"notebook\", nmt's own cleaning, which no "
                               "transformers tokenizer applies; train with text.clean "
                               "\"normalize\"");
  }
  if (config.text.model_type != text::SubwordModel::kUnigram) {
    throw detail::unexportable(run.dir, "transformers",
                               "its SentencePiece model is BPE (text.model_type \"bpe\"), and "
                               "only unigram models go out as a transformers tokenizer for now");
  }
  if (!config.text.shared_vocab) {
    throw detail::unexportable(run.dir, "transformers",
                               "it has separate vocabularies (text.shared_vocab false), and the "
                               "exported tokenizer is one for both languages; train with "
                               "text.shared_vocab true");
  }
  return {false, config.model.norm == model::NormPosition::kPre};
}

json model_config(const model::TransformerImpl& model, const Plan& plan) {
  const model::TransformerOptions& options = model.options();
  json config = {
      {"architectures", {plan.model_class()}},
      {"model_type", plan.is_pegasus ? "pegasus" : "marian"},
      {"d_model", options.d_model},
      {"encoder_layers", options.encoder_depth()},
      {"decoder_layers", options.decoder_depth()},
      {"encoder_attention_heads", options.heads},
      {"decoder_attention_heads", options.heads},
      {"encoder_ffn_dim", options.ff_mult * options.d_model},
      {"decoder_ffn_dim", options.ff_mult * options.d_model},
      {"activation_function", detail::transformers_activation(options.activation)},
      {"dropout", options.dropout},
      {"attention_dropout", options.attention_dropout},
      {"activation_dropout", options.activation_dropout},
      {"scale_embedding", options.scale_embeddings},
      {"vocab_size", model.source_vocab()},
      {"max_position_embeddings", plan.max_positions()},
      {"pad_token_id", plan.pad()},
      {"eos_token_id", plan.eos()},
      {"decoder_start_token_id", plan.decoder_start()},
      {"forced_eos_token_id", plan.eos()},
      {"is_encoder_decoder", true},
      {"dtype", "float32"},
  };
  if (plan.is_pegasus) {
    // Pegasus has one table for both stacks and the output; tied, it is the only one written.
    config["tie_word_embeddings"] = options.share_embeddings && options.tie_embeddings;
  } else {
    config["share_encoder_decoder_embeddings"] = options.share_embeddings;
    config["tie_word_embeddings"] = options.tie_embeddings;
    config["decoder_vocab_size"] = model.target_vocab();
  }
  if (!plan.is_marian_form) config["bos_token_id"] = text::kSosId;
  return config;
}

// generate()'s defaults: the run's decoding (its beam settings also for a greedy run, for callers
// that ask generate() for beams), and neither <pad> nor the start token ever generated (nmt never
// emits its <PAD> and <SOS>).
json generation_config(const decode::SearchOptions& decode, const Plan& plan) {
  const bool is_beam = decode.strategy == decode::Strategy::kBeam;
  const int64_t max_length = plan.max_positions();
  return {
      {"bad_words_ids", {{plan.pad()}, {plan.decoder_start()}}},
      {"decoder_start_token_id", plan.decoder_start()},
      {"eos_token_id", plan.eos()},
      {"forced_eos_token_id", plan.eos()},
      {"pad_token_id", plan.pad()},
      {"max_length", decode.max_len > 0 ? std::min(decode.max_len + 1, max_length) : max_length},
      {"num_beams", is_beam ? decode.beam_size : 1},
      {"length_penalty", decode.length_penalty},
      {"early_stopping", decode.beam_stop == decode::BeamStop::kFirst},
  };
}

void copy_file(const std::string& from, const std::string& to) {
  write_text_atomically(to, read_text_file(from));
}

// nmt's id of each exported id, for Marian's form.
std::vector<int64_t> marian_id_order(int64_t vocabulary) {
  std::vector<int64_t> order(static_cast<std::size_t>(vocabulary));
  for (int64_t id = 0; id < vocabulary; ++id) {
    order[static_cast<std::size_t>(id)] = huggingface_id(id);
  }
  return order;
}

// The tokenizer files into dir; returns their names.
std::vector<std::string> write_tokenizer(const run::OpenedRun& opened,
                                         const Plan& plan,
                                         const std::string& dir) {
  const Config& config = opened.config;
  if (!plan.is_marian_form) {
    const auto* pieces =
        dynamic_cast<const text::SentencePieceTokenizer*>(opened.tokenizers.source.get());
    if (pieces == nullptr) throw Error("cannot export: the run's tokenizer is not SentencePiece");
    detail::write_json(dir + "tokenizer.json",
                       detail::unigram_tokenizer_json(pieces->scored_pieces()));
    detail::write_json(dir + "tokenizer_config.json",
                       detail::fast_tokenizer_config(plan.max_positions()));
    return {"tokenizer.json", "tokenizer_config.json"};
  }
  std::vector<std::string> files = {"tokenizer_config.json", "vocab.json"};
  detail::write_json(dir + "tokenizer_config.json",
                     detail::marian_tokenizer_config(config, plan.max_positions()));
  detail::write_json(dir + "vocab.json", detail::marian_vocabulary_json(*opened.tokenizers.source));
  if (!config.text.shared_vocab) {
    detail::write_json(dir + "target_vocab.json",
                       detail::marian_vocabulary_json(*opened.tokenizers.target));
    files.push_back("target_vocab.json");
  }
  copy_file(opened.dir.path() + "/marian.src.spm", dir + "source.spm");
  copy_file(opened.dir.path() + "/marian.tgt.spm", dir + "target.spm");
  files.insert(files.end(), {"source.spm", "target.spm"});
  return files;
}

}  // namespace

int64_t huggingface_id(int64_t nmt_id) {
  // <PAD> 0 <-> 2 <pad>, <SOS> 1 <-> 3 <s>, <EOS> 2 <-> 0 </s>, <UNK> 3 <-> 1 <unk>.
  static_assert(text::kPadId == 0 && text::kSosId == 1 && text::kEosId == 2 && text::kUnkId == 3,
                "the swap below assumes nmt's special ids");
  return nmt_id < text::kNumSpecials ? nmt_id ^ 2 : nmt_id;
}

HuggingfaceReport export_huggingface(const run::RunRequest& request,
                                     const std::string& out_dir,
                                     const HuggingfaceOptions& options) {
  detail::check_one_run(request.ensemble_dirs.size());
  detail::check_export_dir(out_dir, options.is_forced, kHuggingfaceFiles);
  const Plan plan = plan_export(detail::read_run_settings(request));
  const run::OpenedRun opened = run::open_run(request, {{"runtime.device", "cpu"}});
  const model::TransformerImpl& model = *opened.model;
  detail::HuggingfaceWeights weights(
      model, plan.is_marian_form ? marian_id_order(model.source_vocab()) : std::vector<int64_t>{});
  weights.add_model(plan.is_pegasus, plan.max_positions());

  HuggingfaceReport report;
  report.out_dir = detail::export_dir_path(out_dir);
  report.checkpoint = opened.checkpoint;
  report.model_class = plan.model_class();
  for (const auto& item : model.named_parameters()) report.parameters += item.value().numel();
  report.tensors = static_cast<int64_t>(weights.size());
  const StagingDir staging(report.out_dir + ".tmp");
  const std::string dir = staging.path() + "/";
  weights.write(dir + "model.safetensors");
  detail::write_json(dir + "config.json", model_config(model, plan));
  detail::write_json(dir + "generation_config.json", generation_config(opened.config.decode, plan));
  report.files = {"model.safetensors", "config.json", "generation_config.json"};
  for (const std::string& file : write_tokenizer(opened, plan, dir)) report.files.push_back(file);
  const detail::CardFacts card{std::filesystem::path(report.out_dir).filename().string(),
                               report.model_class, plan.is_marian_form, report.parameters};
  write_text_atomically(dir + "README.md", detail::huggingface_model_card(opened, card));
  report.files.push_back("README.md");
  staging.publish(report.out_dir);
  return report;
}

}  // namespace nmt::exporter
