#include "nmt/export/ctranslate2.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <torch/nn/modules/normalization.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>

#include "export/export_dir.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/vocab.h"

namespace nmt::exporter {
namespace fs = std::filesystem;
namespace {

// nmt module paths inside one encoder or decoder layer -> CTranslate2 scopes
// (TransformerEncoderLayerSpec, TransformerDecoderLayerSpec). CTranslate2 splits a self-attention
// linear_0 [3D, D] into Q, K, V and a cross-attention linear_1 [2D, D] into K, V in that order, as
// nmt's fused projections are laid out (model/attention.h).
const std::map<std::string, std::string> kEncoderLayer = {
    {"self_attention.in_proj", "self_attention/linear_0"},
    {"self_attention.out_proj", "self_attention/linear_1"},
    {"norm1", "self_attention/layer_norm"},
    {"feed_forward.expand", "ffn/linear_0"},
    {"feed_forward.contract", "ffn/linear_1"},
    {"norm2", "ffn/layer_norm"},
};
const std::map<std::string, std::string> kDecoderLayer = {
    {"self_attention.in_proj", "self_attention/linear_0"},
    {"self_attention.out_proj", "self_attention/linear_1"},
    {"norm1", "self_attention/layer_norm"},
    {"cross_attention.in_proj", "attention/linear_0"},
    {"cross_attention.kv_proj", "attention/linear_1"},
    {"cross_attention.out_proj", "attention/linear_2"},
    {"norm2", "attention/layer_norm"},
    {"feed_forward.expand", "ffn/linear_0"},
    {"feed_forward.contract", "ffn/linear_1"},
    {"norm3", "ffn/layer_norm"},
};
const std::map<std::string, std::string> kTopLevel = {
    {"source_embedding", "encoder/embeddings_0"},
    {"target_embedding", "decoder/embeddings"},
    {"encoder_norm", "encoder/layer_norm"},
    {"decoder_norm", "decoder/layer_norm"},
    {"output", "decoder/projection"},
};

// The CTranslate2 scope of an nmt module path ("decoder.1.cross_attention.kv_proj" ->
// "decoder/layer_1/attention/linear_1"); "" when there is none.
std::string ct2_scope(const std::string& module_path) {
  for (const char* stack : {"encoder", "decoder"}) {
    const std::string prefix = std::string(stack) + ".";
    if (module_path.rfind(prefix, 0) != 0) continue;
    const std::size_t dot = module_path.find('.', prefix.size());
    if (dot == std::string::npos) return "";
    const std::string index = module_path.substr(prefix.size(), dot - prefix.size());
    const auto& layer = std::string(stack) == "encoder" ? kEncoderLayer : kDecoderLayer;
    const auto found = layer.find(module_path.substr(dot + 1));
    if (found == layer.end()) return "";
    return std::string(stack) + "/layer_" + index + "/" + found->second;
  }
  const auto found = kTopLevel.find(module_path);
  return found == kTopLevel.end() ? "" : found->second;
}

// The CTranslate2 name of an nmt parameter; "" when it has none.
std::string ct2_name(const std::string& parameter) {
  if (parameter == "output_bias") return "decoder/projection/bias";  // tied output projection
  const std::size_t dot = parameter.rfind('.');
  if (dot == std::string::npos) return "";
  const std::string scope = ct2_scope(parameter.substr(0, dot));
  const std::string leaf = parameter.substr(dot + 1);
  if (scope.empty() || (leaf != "weight" && leaf != "bias")) return "";
  const bool is_norm =
      scope.size() >= 10 && scope.compare(scope.size() - 10, 10, "layer_norm") == 0;
  if (is_norm) return scope + (leaf == "weight" ? "/gamma" : "/beta");
  return scope + "/" + leaf;
}

Ct2Variable to_variable(const std::string& name,
                        const torch::Tensor& tensor,
                        const std::string& parameter) {
  const at::Tensor values = tensor.detach().to(at::kCPU, at::kFloat).contiguous();
  if (!at::isfinite(values).all().item<bool>()) {
    throw Error("cannot export " + parameter +
                ": it holds NaN or infinite values (a diverged training?)");
  }
  return Ct2Variable::float32(name, values.sizes().vec(), values.data_ptr<float>());
}

torch::Tensor parameter(const model::TransformerImpl& model, const std::string& name) {
  const auto parameters = model.named_parameters();
  const torch::Tensor* found = parameters.find(name);
  if (found == nullptr) throw Error("cannot export: the model has no parameter " + name);
  return *found;
}

// CTranslate2's ActivationType, whose order its sources say stays fixed: ReLU 0, GELUTanh 1,
// Swish 2, GELU 3 (exact), GELUSigmoid 4, Tanh 5.
int8_t ct2_activation(model::Activation activation) {
  switch (activation) {
    case model::Activation::kGelu:
      return 3;
    case model::Activation::kSwish:
      return 2;
    case model::Activation::kRelu:
      break;
  }
  return 0;
}

// The scalars of TransformerSpec.from_config(layers, heads, pre_norm=..., activation=...) with its
// other defaults: one source embedding, no relative positions, alignments from the last layer's
// first head. The position table is written as a variable, so either layout needs no scalar.
void add_scalars(const model::TransformerOptions& options, std::vector<Ct2Variable>& variables) {
  if (options.heads > std::numeric_limits<int16_t>::max()) {
    throw Error("cannot export " + std::to_string(options.heads) +
                " attention heads: CTranslate2 stores the count as a 16-bit integer");
  }
  const auto heads = static_cast<int16_t>(options.heads);
  const auto is_pre_norm = static_cast<int8_t>(options.norm == model::NormPosition::kPre);
  const auto is_scaled = static_cast<int8_t>(options.scale_embeddings);
  for (const std::string stack : {"encoder", "decoder"}) {
    variables.push_back(Ct2Variable::int16_scalar(stack + "/num_heads", heads));
    variables.push_back(Ct2Variable::int8_scalar(stack + "/pre_norm", is_pre_norm));
    variables.push_back(
        Ct2Variable::int8_scalar(stack + "/activation", ct2_activation(options.activation)));
    variables.push_back(Ct2Variable::int8_scalar(stack + "/scale_embeddings", is_scaled));
  }
  variables.push_back(Ct2Variable::int8_scalar("encoder/embeddings_merge", 0));
  variables.push_back(Ct2Variable::int8_scalar("encoder/multi_query_attention", 0));
  variables.push_back(Ct2Variable::int16_scalar("decoder/alignment_layer", -1));
  variables.push_back(Ct2Variable::int16_scalar("decoder/alignment_heads", 1));
  for (const char* flag :
       {"alibi", "alibi_use_positive_positions", "scale_alibi", "start_from_zero_embedding"}) {
    variables.push_back(Ct2Variable::int8_scalar(std::string("decoder/") + flag, 0));
  }
}

// Files an export writes: the only ones --force may replace.
const std::vector<std::string> kCtranslate2Files = {"model.bin",
                                                    "config.json",
                                                    "shared_vocabulary.json",
                                                    "source_vocabulary.json",
                                                    "target_vocabulary.json",
                                                    "spm.model",
                                                    "spm.src.model",
                                                    "spm.tgt.model"};

void check_out_dir(const std::string& out_dir, bool is_forced) {
  detail::check_export_dir(out_dir, is_forced, kCtranslate2Files);
}

void check_options(const Ctranslate2Options& options) {
  if (options.max_positions < 1) {
    throw ConfigError("--max-positions: expected a positive integer, got " +
                      std::to_string(options.max_positions));
  }
}

// The vocabulary of tokenizer, one token per id, checked to start with nmt's special tokens.
std::vector<std::string> vocabulary(const text::Tokenizer& tokenizer, const char* side) {
  std::vector<int64_t> ids(static_cast<std::size_t>(tokenizer.size()));
  for (std::size_t id = 0; id < ids.size(); ++id) ids[id] = static_cast<int64_t>(id);
  std::vector<std::string> tokens = tokenizer.pieces(ids);
  for (int64_t id = 0; id < text::kNumSpecials; ++id) {
    const auto index = static_cast<std::size_t>(id);
    if (index >= tokens.size() || tokens[index] != text::kSpecialTokens[id]) {
      throw Error(std::string("cannot export the ") + side + " vocabulary: id " +
                  std::to_string(id) + " must be " + text::kSpecialTokens[id]);
    }
  }
  return tokens;
}

}  // namespace

// nmt never emits <PAD> and <SOS>; CTranslate2 has no such rule, and its callers that cannot pass
// suppress_sequences get them out of its choices only through the output bias. For an imported
// Marian model it matters most: those rows are copies of Marian's pad row (marian_vocabulary.h),
// whose logit is as large as any.
at::Tensor without_pad_and_start(const at::Tensor& bias) {
  at::Tensor kept = bias.detach().to(at::kCPU, at::kFloat).clone();
  kept[text::kPadId] = -10000.0f;
  kept[text::kSosId] = -10000.0f;
  return kept;
}

std::vector<Ct2Variable> transformer_variables(const model::TransformerImpl& model,
                                               int64_t max_positions,
                                               bool keeps_out_pad_and_start) {
  const model::TransformerOptions& options = model.options();
  std::vector<Ct2Variable> variables;
  for (const auto& item : model.named_parameters()) {
    const std::string name = ct2_name(item.key());
    if (name.empty()) {
      throw Error("cannot export parameter " + item.key() +
                  ": CTranslate2's TransformerSpec has no counterpart for it");
    }
    const bool is_output_bias = name == "decoder/projection/bias";
    variables.push_back(to_variable(name,
                                    is_output_bias && keeps_out_pad_and_start
                                        ? without_pad_and_start(item.value())
                                        : item.value(),
                                    item.key()));
  }
  const std::string target_embedding =
      options.share_embeddings ? "source_embedding.weight" : "target_embedding.weight";
  if (options.share_embeddings) {
    variables.push_back(to_variable("decoder/embeddings/weight", parameter(model, target_embedding),
                                    target_embedding));
  }
  if (options.tie_embeddings) {
    variables.push_back(to_variable("decoder/projection/weight", parameter(model, target_embedding),
                                    target_embedding));
  }
  // nmt adds position p's encoding to the token at position p, counting from 0 in the encoder and
  // from <SOS> in the decoder; CTranslate2 adds row p of this table to the same tokens.
  const at::Tensor positions =
      model::sinusoidal_positions(0, max_positions, options.d_model, options.positions, at::kCPU)
          .contiguous();
  for (const char* stack : {"encoder", "decoder"}) {
    variables.push_back(Ct2Variable::float32(std::string(stack) + "/position_encodings/encodings",
                                             positions.sizes().vec(), positions.data_ptr<float>()));
  }
  add_scalars(options, variables);
  return variables;
}

// add_source_eos: Marian's tokenisation ends every source sentence with </s>, which CTranslate2
// appends itself when told to (its users feed it SentencePiece's pieces alone).
nlohmann::json transformer_config(const model::TransformerImpl& model, bool add_source_eos) {
  double epsilon = std::nan("");
  for (const auto& module : model.modules(/*include_self=*/false)) {
    const auto* norm = module->as<torch::nn::LayerNormImpl>();
    if (norm == nullptr) continue;
    if (!std::isnan(epsilon) && norm->options.eps() != epsilon) {
      throw Error(
          "cannot export: the model's layer norms use different epsilons, CTranslate2 "
          "takes one (layer_norm_epsilon)");
    }
    epsilon = norm->options.eps();
  }
  return {
      {"add_source_bos", false},
      {"add_source_eos", add_source_eos},
      {"bos_token", text::kSpecialTokens[text::kSosId]},
      {"decoder_start_token", text::kSpecialTokens[text::kSosId]},
      {"eos_token", text::kSpecialTokens[text::kEosId]},
      {"layer_norm_epsilon", epsilon},
      {"multi_query_attention", false},
      {"unk_token", text::kSpecialTokens[text::kUnkId]},
  };
}

ExportReport write_ctranslate2(const model::TransformerImpl& model,
                               const text::TokenizerPair& tokenizers,
                               const text::TextOptions& text,
                               const std::string& out_dir,
                               const Ctranslate2Options& options) {
  check_options(options);
  check_out_dir(out_dir, options.is_forced);
  const std::vector<std::string> source = vocabulary(*tokenizers.source, "source");
  const std::vector<std::string> target = vocabulary(*tokenizers.target, "target");
  if (static_cast<int64_t>(source.size()) != model.source_vocab() ||
      static_cast<int64_t>(target.size()) != model.target_vocab()) {
    throw Error("cannot export: the vocabularies (" + std::to_string(source.size()) + ", " +
                std::to_string(target.size()) + " tokens) do not fit the model's embeddings (" +
                std::to_string(model.source_vocab()) + ", " + std::to_string(model.target_vocab()) +
                ")");
  }

  const bool is_imported_marian = text.tokenizer == text::TokenizerKind::kMarian;
  std::vector<Ct2Variable> variables = transformer_variables(
      model, options.max_positions, is_imported_marian || options.keeps_out_pad_and_start);
  const nlohmann::json config = transformer_config(model, is_imported_marian);

  ExportReport report;
  report.out_dir = detail::export_dir_path(out_dir);
  const StagingDir staging(report.out_dir + ".tmp");
  AtomicFile model_bin(staging.path() + "/model.bin");
  report.model_bin = write_model_bin(
      kTransformerSpec, kTransformerSpecRevision, std::move(variables),
      [&model_bin](const void* data, std::size_t size) { model_bin.append(data, size); });
  model_bin.commit();
  detail::write_json(staging.path() + "/config.json", config);
  report.files = {"model.bin", "config.json"};
  // As CTranslate2's converters: one shared file when both vocabularies are the same.
  if (source == target) {
    detail::write_json(staging.path() + "/shared_vocabulary.json", source);
    report.files.push_back("shared_vocabulary.json");
  } else {
    detail::write_json(staging.path() + "/source_vocabulary.json", source);
    detail::write_json(staging.path() + "/target_vocabulary.json", target);
    report.files.insert(report.files.end(), {"source_vocabulary.json", "target_vocabulary.json"});
  }
  if (text.tokenizer != text::TokenizerKind::kWord) {
    for (const std::string& path : text::save_tokenizers(text, tokenizers, staging.path())) {
      report.files.push_back(fs::path(path).filename().string());
    }
  }
  staging.publish(report.out_dir);
  for (const auto& item : model.named_parameters()) report.parameters += item.value().numel();
  return report;
}

ExportReport export_ctranslate2(const run::RunRequest& request,
                                const std::string& out_dir,
                                const Ctranslate2Options& options) {
  detail::check_one_run(request.ensemble_dirs.size());
  check_options(options);
  check_out_dir(out_dir, options.is_forced);
  const run::OpenedRun opened = run::open_run(request, {{"runtime.device", "cpu"}});
  ExportReport report =
      write_ctranslate2(*opened.model, opened.tokenizers, opened.config.text, out_dir, options);
  report.checkpoint = opened.checkpoint;
  return report;
}

}  // namespace nmt::exporter
