#include "nmt/import/marian_import.h"

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <variant>

#include "nmt/error.h"
#include "nmt/import/marian_directory.h"
#include "nmt/import/marian_vocabulary.h"
#include "nmt/import/pytorch_checkpoint.h"
#include "nmt/import/safetensors.h"
#include "nmt/io.h"
#include "nmt/model/transformer.h"
#include "nmt/run/config.h"
#include "nmt/run/open_run.h"
#include "nmt/run_dir.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/vocab.h"
#include "nmt/train/checkpoint.h"

namespace nmt::import {
namespace {

namespace fs = std::filesystem;

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The weights file's tensors (model.safetensors, else pytorch_model.bin) as float tensors of the
// shapes nmt's model needs.
class MarianTensors {
 public:
  explicit MarianTensors(const MarianWeights& weights) : file_(open(weights)) {}

  bool has(const std::string& name) const { return find(name) != nullptr; }

  at::Tensor get(const std::string& name, const std::vector<int64_t>& shape) const {
    const TensorInfo* info = find(name);
    if (info == nullptr) throw ConfigError(source() + ": tensor \"" + name + "\" is missing");
    if (info->shape != shape) {
      throw ConfigError(source() + ": tensor \"" + name + "\" has shape " +
                        shape_text(info->shape) + ", but config.json makes it " +
                        shape_text(shape));
    }
    std::vector<float> values =
        std::visit([info](const auto& file) { return file.to_float(*info); }, file_);
    return at::from_blob(values.data(), shape, at::kFloat).clone();
  }

  // Rows of a [rows, columns] tensor (or of the one row of a [1, rows] bias), in nmt's id order.
  at::Tensor rows(const std::string& name,
                  const std::vector<int64_t>& shape,
                  const NmtVocabularyOrder& order) const {
    const at::Tensor table = get(name, shape);
    const at::Tensor index = at::tensor(order.marian_rows, at::kLong);
    return shape.front() == 1 ? table[0].index_select(0, index) : table.index_select(0, index);
  }

  const std::string& source() const {
    return std::visit([](const auto& file) -> const std::string& { return file.source(); }, file_);
  }

 private:
  using File = std::variant<SafetensorsFile, PytorchCheckpoint>;

  static File open(const MarianWeights& weights) {
    if (!weights.is_pytorch_bin_only()) return SafetensorsFile::open(weights.safetensors_path);
    try {
      return PytorchCheckpoint::open(weights.pytorch_bin_path);
    } catch (const ConfigError& error) {
      throw ConfigError(std::string(error.what()) +
                        "\nIf transformers loads it, this writes model.safetensors, which nmt "
                        "reads:\n  " +
                        weights.conversion_command);
    }
  }

  const TensorInfo* find(const std::string& name) const {
    return std::visit([&name](const auto& file) { return file.find(name); }, file_);
  }

  File file_;
};

// Copies value into the model's parameter `name`; the shapes were checked by MarianTensors.
void assign(model::Transformer& model, const std::string& name, const at::Tensor& value) {
  torch::NoGradGuard no_grad;
  auto parameters = model->named_parameters();  // the handles share the parameters' storage
  at::Tensor* parameter = parameters.find(name);
  TORCH_CHECK(parameter != nullptr, "import: the model has no parameter ", name);
  parameter->copy_(value.view(parameter->sizes()));
}

// One of transformers' attention blocks: q, k, v, out_proj with biases.
void assign_attention(model::Transformer& model,
                      const MarianTensors& tensors,
                      const std::string& from,
                      const std::string& to,
                      bool is_self,
                      int64_t d) {
  const auto weight = [&](const char* projection) {
    return tensors.get(from + "." + projection + ".weight", {d, d});
  };
  const auto bias = [&](const char* projection) {
    return tensors.get(from + "." + projection + ".bias", {d});
  };
  if (is_self) {  // nmt's fused in_proj: queries, keys, values
    assign(model, to + ".in_proj.weight",
           at::cat({weight("q_proj"), weight("k_proj"), weight("v_proj")}));
    assign(model, to + ".in_proj.bias", at::cat({bias("q_proj"), bias("k_proj"), bias("v_proj")}));
  } else {  // queries from the decoder, keys and values of the encoder's output
    assign(model, to + ".in_proj.weight", weight("q_proj"));
    assign(model, to + ".in_proj.bias", bias("q_proj"));
    assign(model, to + ".kv_proj.weight", at::cat({weight("k_proj"), weight("v_proj")}));
    assign(model, to + ".kv_proj.bias", at::cat({bias("k_proj"), bias("v_proj")}));
  }
  assign(model, to + ".out_proj.weight", weight("out_proj"));
  assign(model, to + ".out_proj.bias", bias("out_proj"));
}

void assign_norm(model::Transformer& model,
                 const MarianTensors& tensors,
                 const std::string& from,
                 const std::string& to,
                 int64_t d) {
  assign(model, to + ".weight", tensors.get(from + ".weight", {d}));
  assign(model, to + ".bias", tensors.get(from + ".bias", {d}));
}

void assign_feed_forward(model::Transformer& model,
                         const MarianTensors& tensors,
                         const std::string& from,
                         const std::string& to,
                         int64_t d,
                         int64_t f) {
  assign(model, to + ".expand.weight", tensors.get(from + ".fc1.weight", {f, d}));
  assign(model, to + ".expand.bias", tensors.get(from + ".fc1.bias", {f}));
  assign(model, to + ".contract.weight", tensors.get(from + ".fc2.weight", {d, f}));
  assign(model, to + ".contract.bias", tensors.get(from + ".fc2.bias", {d}));
}

// transformers' post-norm layers onto nmt's: self_attn_layer_norm -> norm1, encoder_attn_layer_norm
// -> norm2, final_layer_norm -> the layer's last norm.
void assign_layers(model::Transformer& model,
                   const MarianTensors& tensors,
                   const model::TransformerOptions& options) {
  const int64_t d = options.d_model;
  const int64_t f = options.ff_mult * d;
  for (int64_t i = 0; i < options.encoder_depth(); ++i) {
    const std::string from = "model.encoder.layers." + std::to_string(i);
    const std::string to = "encoder." + std::to_string(i);
    assign_attention(model, tensors, from + ".self_attn", to + ".self_attention", true, d);
    assign_norm(model, tensors, from + ".self_attn_layer_norm", to + ".norm1", d);
    assign_feed_forward(model, tensors, from, to + ".feed_forward", d, f);
    assign_norm(model, tensors, from + ".final_layer_norm", to + ".norm2", d);
  }
  for (int64_t i = 0; i < options.decoder_depth(); ++i) {
    const std::string from = "model.decoder.layers." + std::to_string(i);
    const std::string to = "decoder." + std::to_string(i);
    assign_attention(model, tensors, from + ".self_attn", to + ".self_attention", true, d);
    assign_norm(model, tensors, from + ".self_attn_layer_norm", to + ".norm1", d);
    assign_attention(model, tensors, from + ".encoder_attn", to + ".cross_attention", false, d);
    assign_norm(model, tensors, from + ".encoder_attn_layer_norm", to + ".norm2", d);
    assign_feed_forward(model, tensors, from, to + ".feed_forward", d, f);
    assign_norm(model, tensors, from + ".final_layer_norm", to + ".norm3", d);
  }
}

// Embeddings, output layer and final_logits_bias, their rows in nmt's id order.
void assign_vocabulary_rows(model::Transformer& model,
                            const MarianTensors& tensors,
                            const MarianDirectory& directory,
                            const NmtVocabularyOrder& source,
                            const NmtVocabularyOrder& target) {
  const model::TransformerOptions& options = directory.config.options;
  const int64_t d = options.d_model;
  const int64_t source_rows = directory.config.ids.vocab_size;
  const int64_t target_rows = directory.config.ids.decoder_vocab_size;
  const std::string source_table = tensors.has("model.shared.weight")
                                       ? "model.shared.weight"
                                       : "model.encoder.embed_tokens.weight";
  assign(model, "source_embedding.weight", tensors.rows(source_table, {source_rows, d}, source));
  if (!options.share_embeddings) {
    assign(model, "target_embedding.weight",
           tensors.rows("model.decoder.embed_tokens.weight", {target_rows, d}, target));
  }
  // transformers counts a missing final_logits_bias as zeros.
  at::Tensor bias = tensors.has("final_logits_bias")
                        ? tensors.rows("final_logits_bias", {1, target_rows}, target)
                        : at::zeros({static_cast<int64_t>(target.marian_rows.size())});
  if (target.marian_rows[text::kPadId] == target.marian_rows[text::kSosId]) {
    // Marian's pad row is both <PAD> and <SOS> here: each copy takes half its probability, so
    // that the softmax's normaliser, and every other token's log-probability, is transformers'.
    bias.narrow(0, text::kPadId, 2).sub_(std::log(2.0));
  }
  if (options.tie_embeddings) {
    assign(model, "output_bias", bias);
  } else {
    assign(model, "output.weight", tensors.rows("lm_head.weight", {target_rows, d}, target));
    assign(model, "output.bias", bias);
  }
}

// The run's configuration: the model's shape, Marian's tokenisation, generate()'s beam defaults.
Config run_config(const MarianDirectory& directory, bool is_shared_vocabulary) {
  Config config;
  config.text.tokenizer = text::TokenizerKind::kMarian;
  config.text.clean = text::CleanMode::kNormalize;
  config.text.shared_vocab = is_shared_vocabulary;
  config.model = directory.config.options;
  // The languages of tokenizer_config.json: serve's LibreTranslate pair, the export's model card.
  config.data.source_lang = directory.tokenizer.source_lang;
  config.data.target_lang = directory.tokenizer.target_lang;
  const MarianGeneration& generation = directory.generation;
  config.decode.strategy =
      generation.num_beams > 1 ? decode::Strategy::kBeam : decode::Strategy::kGreedy;
  config.decode.beam_size = std::max<int64_t>(1, generation.num_beams);
  config.decode.length_penalty = generation.length_penalty;
  config.decode.beam_stop =
      generation.early_stopping ? decode::BeamStop::kFirst : decode::BeamStop::kBest;
  config.validate();
  return config;
}

std::shared_ptr<text::MarianTokenizer> tokenizer(const std::string& spm_path,
                                                 const NmtVocabularyOrder& order,
                                                 text::MarianTokenizer::Side side,
                                                 const std::string& vocab_path) {
  std::istringstream lines(vocabulary_file_text(order));
  return std::make_shared<text::MarianTokenizer>(text::MarianTokenizer::from_parts(
      read_text_file(spm_path), text::Vocab::from_stream(lines, vocab_path), side, spm_path));
}

void check_out(const std::string& out) {
  if (out.empty()) throw ConfigError("--out: the run directory to create is required");
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out))) {
    throw ConfigError("--out: " + out + " already exists; nmt import writes a new run directory");
  }
}

}  // namespace

MarianImportReport import_marian(const MarianImportRequest& request) {
  check_out(request.out);
  const MarianDirectory directory = read_marian_directory(request.dir);
  const MarianIds& ids = directory.config.ids;
  const NmtVocabularyOrder source = nmt_vocabulary_order(directory.source_vocab, ids);
  MarianIds target_ids = ids;
  target_ids.vocab_size = ids.decoder_vocab_size;
  const NmtVocabularyOrder target = nmt_vocabulary_order(directory.target_vocab, target_ids);
  const bool is_shared = directory.source_vocab.pieces == directory.target_vocab.pieces;
  const Config config = run_config(directory, is_shared);

  model::Transformer model(config.model, static_cast<int64_t>(source.pieces.size()),
                           static_cast<int64_t>(target.pieces.size()));
  const MarianTensors tensors(directory.weights);
  assign_vocabulary_rows(model, tensors, directory, source, target);
  assign_layers(model, tensors, config.model);

  const std::string out = fs::path(request.out).lexically_normal().string();
  const StagingDir staging(out + ".import.tmp");
  const RunDir run(staging.path());
  save_config(run.config(), config);
  text::TokenizerPair tokenizers = {
      tokenizer(directory.source_spm_path, source, text::MarianTokenizer::Side::kSource,
                directory.source_vocab.path),
      tokenizer(directory.target_spm_path, target, text::MarianTokenizer::Side::kTarget,
                directory.target_vocab.path)};
  text::save_tokenizers(config.text, tokenizers, run.path());
  train::save_checkpoint(run.checkpoint(), model, nullptr, train::TrainingState{},
                         config_to_json(config).dump());
  if (fs::exists(out)) fs::remove(out);  // the empty directory check_out allowed
  staging.publish(out);
  run::update_latest_link(RunDir(out));

  MarianImportReport report;
  report.out = out;
  for (const at::Tensor& parameter : model->parameters()) report.parameters += parameter.numel();
  report.source_vocab = static_cast<int64_t>(source.pieces.size());
  report.target_vocab = static_cast<int64_t>(target.pieces.size());
  report.weights = tensors.source();
  report.language_tags = directory.language_tags;
  report.notes = directory.notes;
  return report;
}

}  // namespace nmt::import
