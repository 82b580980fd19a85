#include "nmt/config.h"

#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt {
namespace {

using nlohmann::json;

template <class E>
using Choices = std::vector<std::pair<const char*, E>>;

const Choices<data::TsvFormat> kFormats = {
    {"auto", data::TsvFormat::kAuto}, {"tatoeba", data::TsvFormat::kTatoeba}, {"anki", data::TsvFormat::kAnki}};
const Choices<text::CleanMode> kCleanModes = {{"notebook", text::CleanMode::kNotebook},
                                              {"normalize", text::CleanMode::kNormalize}};
const Choices<text::TokenizerKind> kTokenizers = {{"word", text::TokenizerKind::kWord},
                                                  {"sentencepiece", text::TokenizerKind::kSentencePiece}};
const Choices<text::SubwordModel> kSubwordModels = {{"unigram", text::SubwordModel::kUnigram},
                                                    {"bpe", text::SubwordModel::kBpe}};
const Choices<model::NormPosition> kNorms = {{"post", model::NormPosition::kPost},
                                             {"pre", model::NormPosition::kPre}};
const Choices<train::Schedule> kSchedules = {{"constant", train::Schedule::kConstant},
                                             {"inverse_sqrt", train::Schedule::kInverseSqrt}};
const Choices<train::Precision> kPrecisions = {{"auto", train::Precision::kAuto},
                                               {"fp32", train::Precision::kFp32},
                                               {"bf16", train::Precision::kBf16}};
const Choices<decode::Strategy> kStrategies = {{"greedy", decode::Strategy::kGreedy},
                                               {"sample", decode::Strategy::kSample},
                                               {"beam", decode::Strategy::kBeam}};

template <class E>
const char* name_of(const Choices<E>& choices, E value) {
  for (const auto& [name, choice] : choices) {
    if (choice == value) return name;
  }
  return "?";
}

enum class IntKind { kPositive, kNonNegative };

// Reads the keys of one section, checking types and ranges, and rejects keys it was not asked for.
class SectionReader {
 public:
  SectionReader(const json& root, std::string name) : name_(std::move(name)) {
    const auto it = root.find(name_);
    if (it == root.end()) return;
    if (!it->is_object()) fail(name_, "an object", *it);
    object_ = &*it;
  }

  void read(const char* key, int64_t& field, IntKind kind) {
    const json* value = find(key);
    if (!value) return;
    const char* expected = kind == IntKind::kPositive ? "a positive integer" : "a non-negative integer";
    if (!value->is_number_integer()) fail(path(key), expected, *value);
    const int64_t number = value->get<int64_t>();
    if (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      fail(path(key), expected, *value);
    }
    if (number < (kind == IntKind::kPositive ? 1 : 0)) fail(path(key), expected, *value);
    field = number;
  }

  void read(const char* key, uint64_t& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_number_integer() || (value->is_number_integer() && !value->is_number_unsigned() &&
                                        value->get<int64_t>() < 0)) {
      fail(path(key), "a non-negative integer", *value);
    }
    field = value->get<uint64_t>();
  }

  void read(const char* key, double& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_number()) fail(path(key), "a number", *value);
    field = value->get<double>();
  }

  void read(const char* key, bool& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_boolean()) fail(path(key), "true or false", *value);
    field = value->get<bool>();
  }

  void read(const char* key, std::string& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_string()) fail(path(key), "a string", *value);
    field = value->get<std::string>();
  }

  template <class E>
  void read(const char* key, E& field, const Choices<E>& choices) {
    const json* value = find(key);
    if (!value) return;
    std::string expected = "one of";
    for (std::size_t i = 0; i < choices.size(); ++i) {
      expected += std::string(i ? ", " : " ") + check::quote(choices[i].first);
    }
    if (!value->is_string()) fail(path(key), expected, *value);
    for (const auto& [name, choice] : choices) {
      if (*value == name) {
        field = choice;
        return;
      }
    }
    fail(path(key), expected, *value);
  }

  // Throws for a key that no read() asked for.
  void finish() const {
    if (!object_) return;
    for (const auto& item : object_->items()) {
      bool is_known = false;
      for (const std::string& key : known_) is_known = is_known || key == item.key();
      if (!is_known) {
        std::string list;
        for (std::size_t i = 0; i < known_.size(); ++i) list += (i ? ", " : "") + known_[i];
        throw ConfigError(path(item.key().c_str()) + ": unknown key (known keys: " + list + ")");
      }
    }
  }

 private:
  const json* find(const char* key) {
    known_.emplace_back(key);
    if (!object_) return nullptr;
    const auto it = object_->find(key);
    return it == object_->end() ? nullptr : &*it;
  }

  std::string path(const char* key) const { return name_ + "." + key; }

  [[noreturn]] static void fail(const std::string& path, const std::string& expected, const json& got) {
    throw ConfigError(path + ": expected " + expected + ", got " + got.dump());
  }

  std::string name_;
  const json* object_ = nullptr;
  std::vector<std::string> known_;
};

template <class Options>
void validate_section(const char* name, const Options& options) {
  try {
    options.validate();
  } catch (const ConfigError& error) {
    throw ConfigError(std::string(name) + "." + error.what());
  }
}

}  // namespace

void Config::validate() const {
  validate_section("data", data);
  validate_section("text", text);
  validate_section("model", model);
  validate_section("train", train);
  validate_section("decode", decode);
  if (model.share_embeddings && !text.shared_vocab) {
    throw ConfigError("model.share_embeddings: needs text.shared_vocab = true");
  }
}

Config config_from_json(const json& root) {
  if (!root.is_object()) throw ConfigError("configuration: expected a JSON object, got " + root.dump());
  for (const auto& item : root.items()) {
    const std::string& key = item.key();
    if (key != "data" && key != "text" && key != "model" && key != "train" && key != "decode" &&
        key != "description") {
      throw ConfigError(key + ": unknown section (known: data, text, model, train, decode, description)");
    }
  }
  Config config;
  SectionReader data(root, "data");
  data.read("path", config.data.path);
  data.read("format", config.data.format, kFormats);
  data.read("max_words", config.data.max_words, IntKind::kPositive);
  data.read("valid_fraction", config.data.valid_fraction);
  data.read("test_fraction", config.data.test_fraction);
  data.read("seed", config.data.seed);
  data.read("group_by_source", config.data.group_by_source);
  data.read("dedupe", config.data.dedupe);
  data.finish();

  SectionReader text(root, "text");
  text.read("clean", config.text.clean, kCleanModes);
  text.read("tokenizer", config.text.tokenizer, kTokenizers);
  text.read("min_freq", config.text.min_freq, IntKind::kPositive);
  text.read("vocab_size", config.text.vocab_size, IntKind::kPositive);
  text.read("shared_vocab", config.text.shared_vocab);
  text.read("model_type", config.text.model_type, kSubwordModels);
  text.read("character_coverage", config.text.character_coverage);
  text.finish();

  SectionReader model(root, "model");
  model.read("d_model", config.model.d_model, IntKind::kPositive);
  model.read("layers", config.model.layers, IntKind::kPositive);
  model.read("heads", config.model.heads, IntKind::kPositive);
  model.read("ff_mult", config.model.ff_mult, IntKind::kPositive);
  model.read("dropout", config.model.dropout);
  model.read("norm", config.model.norm, kNorms);
  model.read("tie_embeddings", config.model.tie_embeddings);
  model.read("share_embeddings", config.model.share_embeddings);
  model.read("scale_embeddings", config.model.scale_embeddings);
  model.finish();

  SectionReader train(root, "train");
  train.read("batch_size", config.train.batch_size, IntKind::kPositive);
  train.read("max_tokens", config.train.max_tokens, IntKind::kNonNegative);
  train.read("epochs", config.train.epochs, IntKind::kPositive);
  train.read("max_steps", config.train.max_steps, IntKind::kNonNegative);
  train.read("lr", config.train.lr);
  train.read("schedule", config.train.schedule, kSchedules);
  train.read("warmup", config.train.warmup, IntKind::kPositive);
  train.read("label_smoothing", config.train.label_smoothing);
  train.read("clip_norm", config.train.clip_norm);
  train.read("early_stopping", config.train.early_stopping, IntKind::kNonNegative);
  train.read("seed", config.train.seed);
  train.read("device", config.train.device);
  train.read("threads", config.train.threads, IntKind::kNonNegative);
  train.read("log_every", config.train.log_every, IntKind::kPositive);
  train.read("save_every", config.train.save_every, IntKind::kNonNegative);
  train.read("average_last", config.train.average_last, IntKind::kNonNegative);
  train.read("precision", config.train.precision, kPrecisions);
  train.read("adam_beta1", config.train.adam_beta1);
  train.read("adam_beta2", config.train.adam_beta2);
  train.read("adam_eps", config.train.adam_eps);
  train.finish();

  SectionReader decode(root, "decode");
  decode.read("strategy", config.decode.strategy, kStrategies);
  decode.read("beam_size", config.decode.beam_size, IntKind::kPositive);
  decode.read("length_penalty", config.decode.length_penalty);
  decode.read("n_best", config.decode.n_best, IntKind::kPositive);
  decode.read("max_len", config.decode.max_len, IntKind::kNonNegative);
  decode.read("temperature", config.decode.temperature);
  decode.read("top_k", config.decode.top_k, IntKind::kNonNegative);
  decode.read("top_p", config.decode.top_p);
  decode.read("seed", config.decode.seed);
  decode.read("batch_size", config.decode.batch_size, IntKind::kPositive);
  decode.finish();

  config.validate();
  return config;
}

json config_to_json(const Config& c) {
  return {
      {"data",
       {{"path", c.data.path},
        {"format", name_of(kFormats, c.data.format)},
        {"max_words", c.data.max_words},
        {"valid_fraction", c.data.valid_fraction},
        {"test_fraction", c.data.test_fraction},
        {"seed", c.data.seed},
        {"group_by_source", c.data.group_by_source},
        {"dedupe", c.data.dedupe}}},
      {"text",
       {{"clean", name_of(kCleanModes, c.text.clean)},
        {"tokenizer", name_of(kTokenizers, c.text.tokenizer)},
        {"min_freq", c.text.min_freq},
        {"vocab_size", c.text.vocab_size},
        {"shared_vocab", c.text.shared_vocab},
        {"model_type", name_of(kSubwordModels, c.text.model_type)},
        {"character_coverage", c.text.character_coverage}}},
      {"model",
       {{"d_model", c.model.d_model},
        {"layers", c.model.layers},
        {"heads", c.model.heads},
        {"ff_mult", c.model.ff_mult},
        {"dropout", c.model.dropout},
        {"norm", name_of(kNorms, c.model.norm)},
        {"tie_embeddings", c.model.tie_embeddings},
        {"share_embeddings", c.model.share_embeddings},
        {"scale_embeddings", c.model.scale_embeddings}}},
      {"train",
       {{"batch_size", c.train.batch_size},
        {"max_tokens", c.train.max_tokens},
        {"epochs", c.train.epochs},
        {"max_steps", c.train.max_steps},
        {"lr", c.train.lr},
        {"schedule", name_of(kSchedules, c.train.schedule)},
        {"warmup", c.train.warmup},
        {"label_smoothing", c.train.label_smoothing},
        {"clip_norm", c.train.clip_norm},
        {"early_stopping", c.train.early_stopping},
        {"seed", c.train.seed},
        {"device", c.train.device},
        {"threads", c.train.threads},
        {"log_every", c.train.log_every},
        {"save_every", c.train.save_every},
        {"average_last", c.train.average_last},
        {"precision", name_of(kPrecisions, c.train.precision)},
        {"adam_beta1", c.train.adam_beta1},
        {"adam_beta2", c.train.adam_beta2},
        {"adam_eps", c.train.adam_eps}}},
      {"decode",
       {{"strategy", name_of(kStrategies, c.decode.strategy)},
        {"beam_size", c.decode.beam_size},
        {"length_penalty", c.decode.length_penalty},
        {"n_best", c.decode.n_best},
        {"max_len", c.decode.max_len},
        {"temperature", c.decode.temperature},
        {"top_k", c.decode.top_k},
        {"top_p", c.decode.top_p},
        {"seed", c.decode.seed},
        {"batch_size", c.decode.batch_size}}},
  };
}

json read_config_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the configuration file");
  try {
    return json::parse(in);
  } catch (const json::parse_error& error) {
    throw ConfigError(path + ": not valid JSON (" + error.what() + ")");
  }
}

Config load_config(const std::string& path) {
  try {
    return config_from_json(read_config_json(path));
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    if (message.rfind(path, 0) == 0) throw;
    throw ConfigError(path + ": " + message);
  }
}

void save_config(const std::string& path, const Config& config) {
  write_text_atomically(path, config_to_json(config).dump(2) + "\n");
}

void set_config_value(json& root, const std::string& dotted_key, const json& value) {
  const std::size_t dot = dotted_key.find('.');
  if (dot == std::string::npos) throw ConfigError(dotted_key + ": expected section.key");
  json& section = root[dotted_key.substr(0, dot)];
  if (!section.is_object()) section = json::object();
  section[dotted_key.substr(dot + 1)] = value;
}

}  // namespace nmt
