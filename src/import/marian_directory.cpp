#include "nmt/import/marian_directory.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "marian_generation.h"
#include "marian_json.h"
#include "safetensors_format.h"

// What this reader relies on, from transformers' sources (models/marian/configuration_marian.py,
// modeling_marian.py, tokenization_marian.py, convert_marian_to_pytorch.py; activations.py;
// configuration_utils.py; generation/configuration_utils.py), 4.x and 5.x alike:
// - MarianConfig's defaults: vocab_size 58101, decoder_vocab_size None -> vocab_size (written
//   `decoder_vocab_size or vocab_size`, so 0 too), max_position_embeddings 1024, activation
//   "gelu", scale_embedding False, pad_token_id 58100, eos_token_id 0, decoder_start_token_id
//   58100 (the default pad: nmt defaults it to pad_token_id), forced_eos_token_id 0,
//   share_encoder_decoder_embeddings True, tie_word_embeddings True, dropout 0.1,
//   attention_dropout 0, activation_dropout 0. The sizes (d_model, layers, heads, FFN widths)
//   default to a 1024-wide 12-layer model that no OPUS-MT checkpoint is; save_pretrained always
//   writes them (they are not PretrainedConfig attributes, which its diff against defaults drops),
//   so here they are required.
// - modeling_marian.py (standalone since 4.3, no longer BART's code) reads none of
//   normalize_before, normalize_embedding, add_final_layer_norm, static_position_embeddings: its
//   layers are post-norm, it has no embedding or final LayerNorm, its positions are the split
//   sinusoid table. Older OPUS-MT configs still carry them; they become notes, never refusals.
// - One MarianAttention per stack takes encoder_/decoder_attention_heads and must divide d_model;
//   fc1/fc2 take encoder_/decoder_ffn_dim. With shared embeddings the output layer has vocab_size
//   rows, else decoder_vocab_size.
// - Without generation_config.json, GenerationConfig.from_model_config takes the generation keys
//   of config.json; a key absent from both has GenerationConfig's default (num_beams 1,
//   max_length 20, length_penalty 1.0, no bad_words_ids, no forced_eos_token_id).

namespace nmt::import {
namespace {

using json = nlohmann::json;
using detail::describe, detail::fail, detail::Fields, detail::is_regular_file, detail::join,
    detail::parse_json, detail::parse_object, detail::quote, detail::read_optional,
    detail::read_required, detail::shell_quote, detail::stat_of;

constexpr uint64_t kMaxConfigBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxVocabularyBytes = uint64_t{64} << 20;

// Far above any Marian model, low enough that sizes multiply without overflow later.
constexpr int64_t kMaxWidth = int64_t{1} << 20;  // d_model, FFN widths, heads
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxVocabulary = int64_t{1} << 26;
constexpr int64_t kMaxPositions = int64_t{1} << 20;

const char kReadsMarian[] = "nmt import --format marian reads MarianMTModel directories (OPUS-MT)";

// model_type must be "marian"; architectures, when given, must hold MarianMTModel: MarianModel
// has no output layer and MarianForCausalLM no encoder, so neither translates.
void check_architecture(const Fields& fields) {
  const json* type = fields.find("model_type");
  if (type == nullptr) {
    fields.fail_key("model_type",
                    std::string("missing; expected \"marian\" (") + kReadsMarian + ")");
  }
  if (!type->is_string()) fields.expected("model_type", "\"marian\"", *type);
  if (*type != "marian") {
    fail(fields.source(),
         "model_type " + describe(*type) + " is not a Marian model; " + kReadsMarian);
  }
  const json* architectures = fields.present("architectures");
  if (architectures == nullptr) return;
  if (!architectures->is_array()) {
    fields.expected("architectures", "a list of class names", *architectures);
  }
  std::string listed;
  for (const json& name : *architectures) {
    if (name == "MarianMTModel") return;
    if (listed.size() < 200) listed += (listed.empty() ? "" : ", ") + describe(name);
  }
  fail(fields.source(),
       "architectures lists [" + listed + "], not \"MarianMTModel\"; " + kReadsMarian);
}

model::Activation read_activation(const Fields& fields) {
  const char* key = "activation_function";
  const char* accepted = R"("swish", "silu", "gelu", "gelu_python" or "relu")";
  const json* value = fields.find(key);
  if (value != nullptr && !value->is_string()) {
    fields.expected(key, std::string("one of ") + accepted, *value);
  }
  const std::string name = value == nullptr ? "gelu" : value->get<std::string>();
  // transformers' ACT2FN: swish and silu are SiLU, gelu and gelu_python the exact (erf) GELU.
  if (name == "swish" || name == "silu") return model::Activation::kSwish;
  if (name == "gelu" || name == "gelu_python") return model::Activation::kGelu;
  if (name == "relu") return model::Activation::kRelu;
  if (name == "gelu_new" || name == "gelu_fast" || name == "gelu_pytorch_tanh" ||
      name == "gelu_accurate") {
    fail(fields.source(), std::string(key) + " " + quote(name) +
                              " is GELU's tanh approximation, which nmt does not have; nmt takes " +
                              accepted);
  }
  fields.fail_key(key, std::string("expected one of ") + accepted + ", got " + quote(name));
}

// The size both stacks share in nmt: encoder_key's, which must equal decoder_key's.
int64_t read_shared_size(const Fields& fields,
                         const char* encoder_key,
                         const char* decoder_key,
                         const std::string& what) {
  const int64_t encoder = fields.integer(encoder_key, 1, kMaxWidth);
  const int64_t decoder = fields.integer(decoder_key, 1, kMaxWidth);
  if (encoder != decoder) {
    fail(fields.source(), std::string(encoder_key) + " (" + std::to_string(encoder) + ") and " +
                              decoder_key + " (" + std::to_string(decoder) +
                              ") differ; nmt has one " + what + " for both stacks");
  }
  return encoder;
}

model::TransformerOptions read_options(const Fields& fields) {
  model::TransformerOptions options;
  options.d_model = fields.integer("d_model", 1, kMaxWidth);
  const std::string d_model = std::to_string(options.d_model);
  if (options.d_model % 2 != 0) {
    const std::string why = "sinusoidal positions pair sin and cos";
    fields.fail_key("d_model", "expected an even number (" + why + "), got " + d_model);
  }
  options.encoder_layers = fields.integer("encoder_layers", 1, kMaxLayers);
  options.decoder_layers = fields.integer("decoder_layers", 1, kMaxLayers);
  options.layers = options.encoder_layers;
  options.heads =
      read_shared_size(fields, "encoder_attention_heads", "decoder_attention_heads", "head count");
  if (options.d_model % options.heads != 0) {
    fields.fail_key("encoder_attention_heads", "expected a divisor of d_model (" + d_model +
                                                   "), got " + std::to_string(options.heads));
  }
  const int64_t ffn =
      read_shared_size(fields, "encoder_ffn_dim", "decoder_ffn_dim", "feed-forward width");
  if (ffn % options.d_model != 0) {
    fail(fields.source(), "encoder_ffn_dim " + std::to_string(ffn) +
                              " is not a multiple of d_model " + d_model +
                              "; nmt's feed-forward width is ff_mult * d_model");
  }
  options.ff_mult = ffn / options.d_model;
  options.activation = read_activation(fields);
  options.norm = model::NormPosition::kPost;
  options.positions = model::PositionLayout::kSplit;
  options.scale_embeddings = fields.boolean_or("scale_embedding", false);
  options.share_embeddings = fields.boolean_or("share_encoder_decoder_embeddings", true);
  options.tie_embeddings = fields.boolean_or("tie_word_embeddings", true);
  options.dropout = fields.fraction_or("dropout", 0.1);
  options.attention_dropout = fields.fraction_or("attention_dropout", 0.0);
  options.activation_dropout = fields.fraction_or("activation_dropout", 0.0);
  return options;
}

// key's id (fallback when absent; null is refused: Marian cannot run without it).
int64_t read_id(const Fields& fields,
                const char* key,
                int64_t fallback,
                int64_t limit,
                const std::string& limit_key) {
  const json* value = fields.find(key);
  return value == nullptr ? fallback : fields.id(key, *value, limit, limit_key);
}

MarianIds read_ids(const Fields& fields) {
  MarianIds ids;
  ids.vocab_size = fields.integer("vocab_size", 1, kMaxVocabulary);
  ids.decoder_vocab_size = fields.integer_or("decoder_vocab_size", 0, 0, kMaxVocabulary);
  if (ids.decoder_vocab_size == 0) ids.decoder_vocab_size = ids.vocab_size;  // transformers' `or`
  ids.max_positions = fields.integer_or("max_position_embeddings", 1024, 1, kMaxPositions);
  // pad and eos appear on both sides (source padding and end, decoder start and output).
  const bool is_source_smaller = ids.vocab_size <= ids.decoder_vocab_size;
  const int64_t both = is_source_smaller ? ids.vocab_size : ids.decoder_vocab_size;
  const char* both_key = is_source_smaller ? "vocab_size" : "decoder_vocab_size";
  ids.pad = read_id(fields, "pad_token_id", 58100, both, both_key);
  ids.eos = read_id(fields, "eos_token_id", 0, both, both_key);
  ids.decoder_start = read_id(fields, "decoder_start_token_id", ids.pad, ids.decoder_vocab_size,
                              "decoder_vocab_size");
  return ids;
}

// Keys transformers' MarianMTModel ignores (see the top of this file), with the value its code
// behaves as; any other value is a note.
struct IgnoredFlag {
  const char* key;
  bool behaviour;
  const char* why;
};
constexpr IgnoredFlag kIgnoredFlags[] = {
    {"normalize_before", false, "its layers are post-norm whatever it says"},
    {"normalize_embedding", false, "it has no LayerNorm on the embeddings"},
    {"add_final_layer_norm", false, "neither stack ends with a LayerNorm"},
    {"static_position_embeddings", true, "its positions are the fixed sinusoid table"},
};

std::vector<std::string> ignored_flag_notes(const Fields& fields) {
  std::vector<std::string> notes;
  for (const IgnoredFlag& flag : kIgnoredFlags) {
    const json* value = fields.present(flag.key);
    if (value == nullptr || (value->is_boolean() && value->get<bool>() == flag.behaviour)) continue;
    notes.push_back(fields.source() + ": " + flag.key + " is " + describe(*value) +
                    ", but transformers' MarianMTModel ignores it: " + flag.why);
  }
  return notes;
}

bool is_language_tag(const std::string& piece) {
  const std::size_t size = piece.size();
  return size >= 5 && piece.compare(0, 2, ">>") == 0 && piece.compare(size - 2, 2, "<<") == 0 &&
         piece.find_first_of("<>", 2) == size - 2;
}

// A SentencePiece model of the directory: a non-empty regular file.
std::string locate_spm(const std::string& dir, const std::string& name, const std::string& side) {
  const std::string path = join(dir, name);
  const std::string role = "the SentencePiece model of the " + side + " language";
  const std::optional<struct stat> info = stat_of(path);
  if (!info) fail(path, "missing; it is " + role);
  if (!S_ISREG(info->st_mode)) fail(path, "not a regular file; it should be " + role);
  if (info->st_size == 0) fail(path, "empty; it should be " + role);
  return path;
}

MarianWeights locate_weights(const std::string& dir) {
  MarianWeights weights;
  if (is_regular_file(join(dir, "model.safetensors"))) {
    weights.safetensors_path = join(dir, "model.safetensors");
  }
  if (is_regular_file(join(dir, "pytorch_model.bin"))) {
    weights.pytorch_bin_path = join(dir, "pytorch_model.bin");
  }
  if (weights.safetensors_path.empty() && weights.pytorch_bin_path.empty()) {
    fail(dir, "no weights: neither model.safetensors nor pytorch_model.bin exists");
  }
  if (weights.is_pytorch_bin_only()) weights.conversion_command = marian_conversion_command(dir);
  return weights;
}

// vocab.json, and target_vocab.json when the tokenizer has separate vocabularies (else the target
// side reads vocab.json too).
std::pair<MarianVocabulary, MarianVocabulary> read_vocabularies(
    const std::string& dir, const MarianConfig& config, const MarianTokenizerConfig& tokenizer) {
  const MarianIds& ids = config.ids;
  const std::string vocab_path = join(dir, "vocab.json");
  if (!tokenizer.has_separate_vocabs && ids.decoder_vocab_size != ids.vocab_size) {
    fail(vocab_path,
         "serves both sides (tokenizer_config.json does not set separate_vocabs), "
         "but config.json has vocab_size " +
             std::to_string(ids.vocab_size) + " and decoder_vocab_size " +
             std::to_string(ids.decoder_vocab_size));
  }
  if (tokenizer.has_separate_vocabs && config.options.share_embeddings) {
    fail(join(dir, "tokenizer_config.json"),
         "separate_vocabs is true, but config.json's share_encoder_decoder_embeddings is true: "
         "one embedding matrix cannot serve two vocabularies");
  }
  MarianVocabulary source = parse_marian_vocabulary(
      read_required(vocab_path, kMaxVocabularyBytes, "it maps the model's pieces to ids"),
      vocab_path, ids, /*is_target=*/false);
  if (!tokenizer.has_separate_vocabs) return {source, source};
  const std::string target_path = join(dir, "target_vocab.json");
  MarianVocabulary target = parse_marian_vocabulary(
      read_required(target_path, kMaxVocabularyBytes,
                    "tokenizer_config.json sets separate_vocabs, so the target side has a "
                    "vocabulary of its own"),
      target_path, ids, /*is_target=*/true);
  return {std::move(source), std::move(target)};
}
}  // namespace

MarianConfig parse_marian_config(const std::string& text, const std::string& source) {
  const json document = parse_object(text, source);
  const Fields fields(document, source);
  check_architecture(fields);
  MarianConfig config;
  config.options = read_options(fields);
  config.ids = read_ids(fields);
  if (config.options.share_embeddings && config.ids.decoder_vocab_size != config.ids.vocab_size) {
    fail(source,
         "share_encoder_decoder_embeddings is true (one embedding matrix for both sides), "
         "but vocab_size (" +
             std::to_string(config.ids.vocab_size) + ") and decoder_vocab_size (" +
             std::to_string(config.ids.decoder_vocab_size) + ") differ");
  }
  config.generation = detail::read_marian_generation(fields, config.ids);
  config.notes = ignored_flag_notes(fields);
  return config;
}

MarianTokenizerConfig parse_marian_tokenizer_config(const std::string& text,
                                                    const std::string& source) {
  const json document = parse_object(text, source);
  const Fields fields(document, source);
  MarianTokenizerConfig config;
  config.source_lang = fields.string_or("source_lang", "");
  config.target_lang = fields.string_or("target_lang", "");
  config.has_separate_vocabs = fields.boolean_or("separate_vocabs", false);
  return config;
}

MarianVocabulary parse_marian_vocabulary(const std::string& text,
                                         const std::string& source,
                                         const MarianIds& ids,
                                         bool is_target) {
  const json document = parse_json(text, source);
  if (!document.is_object()) {
    fail(source, "expected a JSON object mapping pieces to ids, got " + describe(document));
  }
  const int64_t size = is_target ? ids.decoder_vocab_size : ids.vocab_size;
  const std::string size_key = is_target ? "decoder_vocab_size" : "vocab_size";
  const std::string entries = std::to_string(document.size());
  if (document.size() != static_cast<std::size_t>(size)) {
    fail(source, entries + " entries, but config.json has " + size_key + " " +
                     std::to_string(size) + " (one embedding row per entry)");
  }
  const Fields fields(document, source);
  MarianVocabulary vocabulary;
  vocabulary.path = source;
  vocabulary.pieces.resize(static_cast<std::size_t>(size));
  std::vector<bool> is_taken(static_cast<std::size_t>(size), false);
  for (const auto& [piece, value] : document.get_ref<const json::object_t&>()) {
    const auto id = static_cast<std::size_t>(fields.id(quote(piece), value, size, size_key));
    if (is_taken[id]) {
      fail(source, quote(vocabulary.pieces[id]) + " and " + quote(piece) + " both have id " +
                       std::to_string(id));
    }
    is_taken[id] = true;
    vocabulary.pieces[id] = piece;
  }
  // n distinct ids below n: every id 0..n-1 has exactly one piece.
  const auto special = [&](const char* piece, const char* role) {
    const auto found = document.find(piece);
    if (found == document.end()) fail(source, "has no " + quote(piece) + " (" + role + ")");
    return found->get<int64_t>();
  };
  const auto check = [&](const char* piece, const char* role, int64_t expected, const char* key) {
    const int64_t id = special(piece, role);
    if (id != expected) {
      fail(source, quote(piece) + " has id " + std::to_string(id) + ", but config.json has " + key +
                       " " + std::to_string(expected));
    }
  };
  check("</s>", "the end-of-sentence piece", ids.eos, "eos_token_id");
  check("<pad>", "the padding piece", ids.pad, "pad_token_id");
  vocabulary.unk_id = special("<unk>", "the unknown piece, which MarianTokenizer requires");
  return vocabulary;
}

std::vector<std::string> marian_language_tags(const std::vector<std::string>& pieces) {
  std::vector<std::string> tags;
  std::copy_if(pieces.begin(), pieces.end(), std::back_inserter(tags), is_language_tag);
  std::sort(tags.begin(), tags.end());
  return tags;
}

std::string marian_conversion_command(const std::string& dir) {
  return "python3 -c \"import sys; from transformers import MarianMTModel; "
         "MarianMTModel.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[1])\" " +
         shell_quote(dir);
}

MarianDirectory read_marian_directory(const std::string& dir) {
  const std::optional<struct stat> info = stat_of(dir);
  if (!info) fail(dir, "no such directory");
  if (!S_ISDIR(info->st_mode)) fail(dir, std::string("not a directory; ") + kReadsMarian);
  MarianDirectory result;
  result.path = dir;
  const std::string config_path = join(dir, "config.json");
  result.config = parse_marian_config(
      read_required(config_path, kMaxConfigBytes, "a Marian model directory has one"), config_path);
  result.notes = result.config.notes;
  result.generation = result.config.generation;
  const std::string generation_path = join(dir, "generation_config.json");
  if (const auto text = read_optional(generation_path, kMaxConfigBytes)) {
    result.generation = parse_marian_generation_config(*text, generation_path, result.config.ids);
  }
  result.notes.insert(result.notes.end(), result.generation.notes.begin(),
                      result.generation.notes.end());
  const std::string tokenizer_path = join(dir, "tokenizer_config.json");
  if (const auto text = read_optional(tokenizer_path, kMaxConfigBytes)) {
    result.tokenizer = parse_marian_tokenizer_config(*text, tokenizer_path);
  }
  std::tie(result.source_vocab, result.target_vocab) =
      read_vocabularies(dir, result.config, result.tokenizer);
  result.language_tags = marian_language_tags(result.source_vocab.pieces);
  result.source_spm_path = locate_spm(dir, "source.spm", "source");
  result.target_spm_path = locate_spm(dir, "target.spm", "target");
  result.weights = locate_weights(dir);
  return result;
}

}  // namespace nmt::import
