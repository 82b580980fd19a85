#include "nmt/export/huggingface.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "export/export_dir.h"
#include "nmt/error.h"
#include "nmt/import/safetensors.h"
#include "nmt/io.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::exporter {
namespace {

using nlohmann::json;

// transformers' MarianConfig.max_position_embeddings, OPUS-MT's: the rows of its sinusoid table,
// so the longest source and output it takes.
constexpr int64_t kMaxPositions = 512;

// Exported ids of the special tokens (huggingface_id of nmt's).
constexpr int64_t kEos = 0;
constexpr int64_t kUnk = 1;
constexpr int64_t kPad = 2;
constexpr int64_t kDecoderStart = 3;

// Files an export writes: the only ones --force may replace.
const std::vector<std::string> kExportFiles = {"model.safetensors",
                                                "config.json",
                                                "generation_config.json",
                                                "tokenizer_config.json",
                                                "vocab.json",
                                                "target_vocab.json",
                                                "source.spm",
                                                "target.spm",
                                                "README.md"};

// The setting that keeps a run from Marian's form, or "" when it has that form.
std::string marian_form_problem(const Config& config) {
  if (config.text.tokenizer != text::TokenizerKind::kMarian) {
    return "its tokenisation is not Marian's (text.tokenizer is not \"marian\")";
  }
  if (config.model.norm != model::NormPosition::kPost) return "it is pre-norm (model.norm \"pre\")";
  if (config.model.positions != model::PositionLayout::kSplit) {
    return "its sinusoid positions are interleaved (model.positions \"interleaved\")";
  }
  return "";
}

void check_exportable(const run::OpenedRun& opened) {
  const std::string problem = marian_form_problem(opened.config);
  if (!problem.empty()) {
    throw ConfigError(opened.dir.path() + ": only runs of Marian's form (post-norm, split " +
                      "positions, Marian's tokenisation: runs of nmt import --format marian and " +
                      "their fine-tunings) export to transformers for now, and " + problem);
  }
}

// The name transformers' MarianTokenizer sees for each exported id of one side's vocabulary.
std::vector<std::string> exported_pieces(const text::Tokenizer& tokenizer) {
  const auto* marian = dynamic_cast<const text::MarianTokenizer*>(&tokenizer);
  if (marian == nullptr) throw Error("cannot export: the run's tokenizer is not Marian's");
  const text::Vocab& vocabulary = marian->vocabulary();
  std::vector<std::string> pieces(static_cast<std::size_t>(vocabulary.size()));
  for (int64_t id = 0; id < vocabulary.size(); ++id) {
    pieces[static_cast<std::size_t>(huggingface_id(id))] = vocabulary.token(id);
  }
  pieces[kEos] = "</s>";
  pieces[kUnk] = "<unk>";
  pieces[kPad] = "<pad>";
  pieces[kDecoderStart] = "<s>";
  for (std::size_t id = text::kNumSpecials; id < pieces.size(); ++id) {
    if (std::find(pieces.begin(), pieces.begin() + text::kNumSpecials, pieces[id]) !=
        pieces.begin() + text::kNumSpecials) {
      throw ConfigError("cannot export: the vocabulary holds " + pieces[id] +
                        " as an ordinary piece (id " + std::to_string(id) +
                        "), a name transformers' tokenizer keeps for a special token");
    }
  }
  return pieces;
}

json vocabulary_json(const std::vector<std::string>& pieces) {
  json vocabulary = json::object();
  for (std::size_t id = 0; id < pieces.size(); ++id) vocabulary[pieces[id]] = id;
  return vocabulary;
}

// The tensors of model.safetensors, fp32 and contiguous, kept alive while the file is written.
class ExportedTensors {
 public:
  explicit ExportedTensors(const model::TransformerImpl& model) : model_(model) {}

  void add(const std::string& name, const at::Tensor& value) {
    names_.push_back(name);
    values_.push_back(value.detach().to(at::kFloat).contiguous());
  }
  // A parameter of nmt's model by name.
  at::Tensor parameter(const std::string& name) const {
    const auto parameters = model_.named_parameters();
    const at::Tensor* found = parameters.find(name);
    if (found == nullptr) throw Error("cannot export: the model has no parameter " + name);
    return *found;
  }
  // Rows of a vocabulary table in the exported ids' order.
  static at::Tensor in_exported_order(const at::Tensor& table) {
    std::vector<int64_t> order(static_cast<std::size_t>(table.size(0)));
    for (std::size_t id = 0; id < order.size(); ++id) {
      order[id] = huggingface_id(static_cast<int64_t>(id));
    }
    return table.index_select(0, at::tensor(order, at::kLong));
  }

  void write(const std::string& path) const {
    std::vector<import::TensorToWrite> tensors;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      const at::Tensor& value = values_[i];
      tensors.push_back({names_[i], import::Dtype::kF32, value.sizes().vec(),
                         {static_cast<const char*>(value.data_ptr()),
                          static_cast<std::size_t>(value.numel()) * sizeof(float)}});
    }
    import::write_safetensors(path, tensors, {{"format", "pt"}});
  }
  std::size_t size() const { return names_.size(); }

 private:
  const model::TransformerImpl& model_;
  std::vector<std::string> names_;
  std::vector<at::Tensor> values_;
};

// nmt's fused projections split back into transformers' q, k, v (the inverse of the import's).
void add_attention(ExportedTensors& tensors,
                   const std::string& from,
                   const std::string& to,
                   bool is_self,
                   int64_t d) {
  const at::Tensor weight = tensors.parameter(from + ".in_proj.weight");
  const at::Tensor bias = tensors.parameter(from + ".in_proj.bias");
  tensors.add(to + ".q_proj.weight", weight.narrow(0, 0, d));
  tensors.add(to + ".q_proj.bias", bias.narrow(0, 0, d));
  const at::Tensor kv_weight = is_self ? weight.narrow(0, d, 2 * d)
                                       : tensors.parameter(from + ".kv_proj.weight");
  const at::Tensor kv_bias =
      is_self ? bias.narrow(0, d, 2 * d) : tensors.parameter(from + ".kv_proj.bias");
  tensors.add(to + ".k_proj.weight", kv_weight.narrow(0, 0, d));
  tensors.add(to + ".k_proj.bias", kv_bias.narrow(0, 0, d));
  tensors.add(to + ".v_proj.weight", kv_weight.narrow(0, d, d));
  tensors.add(to + ".v_proj.bias", kv_bias.narrow(0, d, d));
  tensors.add(to + ".out_proj.weight", tensors.parameter(from + ".out_proj.weight"));
  tensors.add(to + ".out_proj.bias", tensors.parameter(from + ".out_proj.bias"));
}

void add_module(ExportedTensors& tensors, const std::string& from, const std::string& to) {
  tensors.add(to + ".weight", tensors.parameter(from + ".weight"));
  tensors.add(to + ".bias", tensors.parameter(from + ".bias"));
}

// The feed-forward sub-layer and the layer's norms: norm1 after self-attention, the last one
// after the feed-forward (post-norm), norm2 after cross-attention in a decoder layer.
void add_layer(ExportedTensors& tensors, const std::string& from, const std::string& to,
               bool is_decoder, int64_t d) {
  add_attention(tensors, from + ".self_attention", to + ".self_attn", true, d);
  add_module(tensors, from + ".norm1", to + ".self_attn_layer_norm");
  if (is_decoder) {
    add_attention(tensors, from + ".cross_attention", to + ".encoder_attn", false, d);
    add_module(tensors, from + ".norm2", to + ".encoder_attn_layer_norm");
  }
  add_module(tensors, from + ".feed_forward.expand", to + ".fc1");
  add_module(tensors, from + ".feed_forward.contract", to + ".fc2");
  add_module(tensors, from + (is_decoder ? ".norm3" : ".norm2"), to + ".final_layer_norm");
}

void add_vocabulary_tables(ExportedTensors& tensors, const model::TransformerImpl& model) {
  const model::TransformerOptions& options = model.options();
  const auto exported = &ExportedTensors::in_exported_order;
  const at::Tensor source = tensors.parameter("source_embedding.weight");
  if (options.share_embeddings) {
    tensors.add("model.shared.weight", exported(source));
  } else {
    tensors.add("model.encoder.embed_tokens.weight", exported(source));
    tensors.add("model.decoder.embed_tokens.weight",
                exported(tensors.parameter("target_embedding.weight")));
  }
  if (!options.tie_embeddings) tensors.add("lm_head.weight", exported(model.output_weight()));
  tensors.add("final_logits_bias", exported(model.output_bias()).unsqueeze(0));
}

const char* activation_name(model::Activation activation) {
  switch (activation) {
    case model::Activation::kRelu:
      return "relu";
    case model::Activation::kGelu:
      return "gelu";
    case model::Activation::kSwish:
      return "swish";
  }
  return "relu";
}

json marian_config(const model::TransformerImpl& model) {
  const model::TransformerOptions& options = model.options();
  return {
      {"architectures", {"MarianMTModel"}},
      {"model_type", "marian"},
      {"d_model", options.d_model},
      {"encoder_layers", options.encoder_depth()},
      {"decoder_layers", options.decoder_depth()},
      {"encoder_attention_heads", options.heads},
      {"decoder_attention_heads", options.heads},
      {"encoder_ffn_dim", options.ff_mult * options.d_model},
      {"decoder_ffn_dim", options.ff_mult * options.d_model},
      {"activation_function", activation_name(options.activation)},
      {"dropout", options.dropout},
      {"attention_dropout", options.attention_dropout},
      {"activation_dropout", options.activation_dropout},
      {"scale_embedding", options.scale_embeddings},
      {"share_encoder_decoder_embeddings", options.share_embeddings},
      {"tie_word_embeddings", options.tie_embeddings},
      {"vocab_size", model.source_vocab()},
      {"decoder_vocab_size", model.target_vocab()},
      {"max_position_embeddings", kMaxPositions},
      {"pad_token_id", kPad},
      {"eos_token_id", kEos},
      {"decoder_start_token_id", kDecoderStart},
      {"forced_eos_token_id", kEos},
      {"is_encoder_decoder", true},
      {"dtype", "float32"},
  };
}

// generate()'s defaults: the run's decoding (its beam settings also for a greedy run, for callers
// that ask generate() for beams), and neither <pad> nor the start token ever generated (nmt never
// emits its <PAD> and <SOS>).
json generation_config(const decode::SearchOptions& decode) {
  const bool is_beam = decode.strategy == decode::Strategy::kBeam;
  return {
      {"bad_words_ids", {{kPad}, {kDecoderStart}}},
      {"decoder_start_token_id", kDecoderStart},
      {"eos_token_id", kEos},
      {"forced_eos_token_id", kEos},
      {"pad_token_id", kPad},
      {"max_length",
       decode.max_len > 0 ? std::min(decode.max_len + 1, kMaxPositions) : kMaxPositions},
      {"num_beams", is_beam ? decode.beam_size : 1},
      {"length_penalty", decode.length_penalty},
      {"early_stopping", decode.beam_stop == decode::BeamStop::kFirst},
  };
}

// The special tokens, as transformers writes them, so that decode(skip_special_tokens) drops the
// decoder start too.
json added_tokens() {
  json tokens = json::object();
  const std::pair<int64_t, const char*> specials[] = {
      {kEos, "</s>"}, {kUnk, "<unk>"}, {kPad, "<pad>"}, {kDecoderStart, "<s>"}};
  for (const auto& [id, content] : specials) {
    tokens[std::to_string(id)] = {{"content", content}, {"lstrip", false}, {"normalized", false},
                                  {"rstrip", false},    {"single_word", false}, {"special", true}};
  }
  return tokens;
}

json tokenizer_config(const Config& config) {
  return {
      {"added_tokens_decoder", added_tokens()},
      {"additional_special_tokens", {"<s>"}},
      {"tokenizer_class", "MarianTokenizer"},
      {"source_lang", config.data.source_lang},
      {"target_lang", config.data.target_lang},
      {"separate_vocabs", !config.text.shared_vocab},
      {"eos_token", "</s>"},
      {"unk_token", "<unk>"},
      {"pad_token", "<pad>"},
      {"model_max_length", kMaxPositions},
      {"sp_model_kwargs", json::object()},
  };
}

std::string model_card(const run::OpenedRun& opened, const HuggingfaceReport& report) {
  const Config& config = opened.config;
  const model::TransformerOptions& options = config.model;
  const auto language = [](const std::string& code) { return code.empty() ? "?" : code; };
  std::string card = "---\ntags:\n- translation\n- marian\n- nmt\nlibrary_name: transformers\n";
  card += "pipeline_tag: translation\n";
  if (!config.data.source_lang.empty() && !config.data.target_lang.empty()) {
    card += "language:\n- " + config.data.source_lang + "\n- " + config.data.target_lang + "\n";
  }
  card += "---\n\n# " + std::filesystem::path(report.out_dir).filename().string() + "\n\n";
  card += "A MarianMTModel (" + language(config.data.source_lang) + " to " +
          language(config.data.target_lang) + ") exported by nmt from the run `" +
          opened.dir.path() + "` (weights `" +
          std::filesystem::path(opened.checkpoint).filename().string() + "`).\n\n";
  card += "- " + std::to_string(report.parameters) + " parameters: d_model " +
          std::to_string(options.d_model) + ", " + std::to_string(options.encoder_depth()) + "+" +
          std::to_string(options.decoder_depth()) + " layers, " + std::to_string(options.heads) +
          " heads, feed-forward " + std::to_string(options.ff_mult * options.d_model) + ", " +
          activation_name(options.activation) + "\n";
  card += "- vocabularies: " + std::to_string(opened.model->source_vocab()) + " source, " +
          std::to_string(opened.model->target_vocab()) + " target pieces (SentencePiece)\n";
  card += "- decoding (generation_config.json): as the run's `decode` section; `generate()` gives "
          "the translations `nmt translate` gives\n\n";
  card +=
      "## Use\n\n```python\nfrom transformers import AutoModelForSeq2SeqLM, AutoTokenizer\n\n"
      "tokenizer = AutoTokenizer.from_pretrained(\"DIR\")\n"
      "model = AutoModelForSeq2SeqLM.from_pretrained(\"DIR\")\n"
      "batch = tokenizer([\"I am hungry.\"], return_tensors=\"pt\", padding=True)\n"
      "print(tokenizer.batch_decode(model.generate(**batch), skip_special_tokens=True))\n```\n";
  return card;
}

void copy_file(const std::string& from, const std::string& to) {
  write_text_atomically(to, read_text_file(from));
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
  detail::check_export_dir(out_dir, options.is_forced, kExportFiles);
  const run::OpenedRun opened = run::open_run(request, {{"train.device", "cpu"}});
  check_exportable(opened);
  const model::TransformerImpl& model = *opened.model;
  const std::vector<std::string> source = exported_pieces(*opened.tokenizers.source);
  const std::vector<std::string> target = exported_pieces(*opened.tokenizers.target);

  ExportedTensors tensors(model);
  add_vocabulary_tables(tensors, model);
  for (int64_t i = 0; i < model.options().encoder_depth(); ++i) {
    add_layer(tensors, "encoder." + std::to_string(i),
              "model.encoder.layers." + std::to_string(i), false, model.options().d_model);
  }
  for (int64_t i = 0; i < model.options().decoder_depth(); ++i) {
    add_layer(tensors, "decoder." + std::to_string(i),
              "model.decoder.layers." + std::to_string(i), true, model.options().d_model);
  }

  HuggingfaceReport report;
  report.out_dir = detail::export_dir_path(out_dir);
  report.checkpoint = opened.checkpoint;
  for (const auto& item : model.named_parameters()) report.parameters += item.value().numel();
  report.tensors = static_cast<int64_t>(tensors.size());
  const StagingDir staging(report.out_dir + ".tmp");
  const std::string dir = staging.path() + "/";
  tensors.write(dir + "model.safetensors");
  detail::write_json(dir + "config.json", marian_config(model));
  detail::write_json(dir + "generation_config.json", generation_config(opened.config.decode));
  detail::write_json(dir + "tokenizer_config.json", tokenizer_config(opened.config));
  detail::write_json(dir + "vocab.json", vocabulary_json(source));
  report.files = {"model.safetensors", "config.json", "generation_config.json",
                  "tokenizer_config.json", "vocab.json"};
  if (!opened.config.text.shared_vocab) {
    detail::write_json(dir + "target_vocab.json", vocabulary_json(target));
    report.files.push_back("target_vocab.json");
  }
  copy_file(opened.dir.path() + "/marian.src.spm", dir + "source.spm");
  copy_file(opened.dir.path() + "/marian.tgt.spm", dir + "target.spm");
  write_text_atomically(dir + "README.md", model_card(opened, report));
  report.files.insert(report.files.end(), {"source.spm", "target.spm", "README.md"});
  staging.publish(report.out_dir);
  return report;
}

}  // namespace nmt::exporter
