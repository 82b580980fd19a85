#include "nmt/config.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"

namespace nmt {
namespace {

using nlohmann::json;

template <class E>
using Choices = std::vector<std::pair<const char*, E>>;

const Choices<data::TsvFormat> kFormats = {{"auto", data::TsvFormat::kAuto},
                                           {"tatoeba", data::TsvFormat::kTatoeba},
                                           {"anki", data::TsvFormat::kAnki}};
const Choices<text::CleanMode> kCleanModes = {{"notebook", text::CleanMode::kNotebook},
                                              {"normalize", text::CleanMode::kNormalize}};
const Choices<text::TokenizerKind> kTokenizers = {
    {"word", text::TokenizerKind::kWord}, {"sentencepiece", text::TokenizerKind::kSentencePiece}};
const Choices<text::SubwordModel> kSubwordModels = {{"unigram", text::SubwordModel::kUnigram},
                                                    {"bpe", text::SubwordModel::kBpe}};
const Choices<model::NormPosition> kNorms = {{"post", model::NormPosition::kPost},
                                             {"pre", model::NormPosition::kPre}};
const Choices<train::Schedule> kSchedules = {{"constant", train::Schedule::kConstant},
                                             {"inverse_sqrt", train::Schedule::kInverseSqrt}};
const Choices<train::BestMetric> kBestMetrics = {{"loss", train::BestMetric::kLoss},
                                                 {"bleu", train::BestMetric::kBleu},
                                                 {"chrf", train::BestMetric::kChrf}};
const Choices<train::Backend> kBackends = {{"auto", train::Backend::kAuto},
                                           {"gloo", train::Backend::kGloo},
                                           {"nccl", train::Backend::kNccl}};
const Choices<train::Precision> kPrecisions = {{"auto", train::Precision::kAuto},
                                               {"fp32", train::Precision::kFp32},
                                               {"bf16", train::Precision::kBf16}};
const Choices<decode::Precision> kDecodePrecisions = {{"auto", decode::Precision::kAuto},
                                                      {"fp32", decode::Precision::kFp32},
                                                      {"bf16", decode::Precision::kBf16},
                                                      {"int8", decode::Precision::kInt8}};
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

enum class IntKind { kPositive, kNonNegative, kAny };

// A field written as a duration ("40m", "1h30m": nmt/format.h) and held in seconds.
struct DurationField {};

// Reads the fields config_fields() names, checking types and ranges section by section, and
// rejects keys no field claimed.
class ConfigReader {
 public:
  explicit ConfigReader(const json& root) : root_(root) {}

  void section(const char* name) {
    finish_section();
    name_ = name;
    known_.clear();
    object_ = nullptr;
    const auto it = root_.find(name_);
    if (it == root_.end()) return;
    if (!it->is_object()) fail(name_, "an object", *it);
    object_ = &*it;
  }

  // An object inside the current section (train.distributed); its keys are read next.
  void subsection(const char* name) {
    const json* value = find(name);
    finish_section();
    name_ += std::string(".") + name;
    known_.clear();
    object_ = nullptr;
    if (!value) return;
    if (!value->is_object()) fail(name_, "an object", *value);
    object_ = value;
  }

  void operator()(const char* key, int64_t& field, IntKind kind) {
    const json* value = find(key);
    if (!value) return;
    const char* expected = kind == IntKind::kPositive      ? "a positive integer"
                           : kind == IntKind::kNonNegative ? "a non-negative integer"
                                                           : "an integer";
    if (!value->is_number_integer()) fail(path(key), expected, *value);
    const bool is_too_large =
        value->is_number_unsigned() &&
        value->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max());
    const int64_t least = kind == IntKind::kPositive      ? 1
                          : kind == IntKind::kNonNegative ? 0
                                                          : std::numeric_limits<int64_t>::min();
    if (is_too_large || value->get<int64_t>() < least) {
      fail(path(key), expected, *value);
    }
    field = value->get<int64_t>();
  }

  void operator()(const char* key, uint64_t& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_number_integer() ||
        (!value->is_number_unsigned() && value->get<int64_t>() < 0)) {
      fail(path(key), "a non-negative integer", *value);
    }
    field = value->get<uint64_t>();
  }

  void operator()(const char* key, double& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_number()) fail(path(key), "a number", *value);
    field = value->get<double>();
  }

  void operator()(const char* key, double& seconds, DurationField) {
    const json* value = find(key);
    if (!value) return;
    constexpr const char* kExpected =
        "a duration such as \"90s\", \"40m\", \"2h\" or \"1h30m\" (0 = no limit)";
    if (value->is_number() && value->get<double>() == 0.0) {
      seconds = 0.0;
      return;
    }
    const std::optional<double> parsed =
        value->is_string() ? parse_duration(value->get<std::string>()) : std::nullopt;
    if (!parsed) fail(path(key), kExpected, *value);
    seconds = *parsed;
  }

  void operator()(const char* key, bool& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_boolean()) fail(path(key), "true or false", *value);
    field = value->get<bool>();
  }

  void operator()(const char* key, std::string& field) {
    const json* value = find(key);
    if (!value) return;
    if (!value->is_string()) fail(path(key), "a string", *value);
    field = value->get<std::string>();
  }

  // A corpus list: "file.tsv", {"path": ...} or {"source": ..., "target": ..., "weight": ...},
  // or an array of those.
  void operator()(const char* key, std::vector<data::CorpusFile>& field) {
    const json* value = find(key);
    if (!value) return;
    field.clear();
    if (!value->is_array()) {
      field.push_back(corpus_file(path(key), *value));
      return;
    }
    for (std::size_t i = 0; i < value->size(); ++i) {
      field.push_back(corpus_file(path(key) + "[" + std::to_string(i) + "]", (*value)[i]));
    }
  }

  template <class E>
  void operator()(const char* key, E& field, const Choices<E>& choices) {
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

  // Throws for a key of the current section that no field asked for.
  void finish_section() const {
    if (!object_) return;
    for (const auto& item : object_->items()) {
      if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
      std::string list;
      for (std::size_t i = 0; i < known_.size(); ++i) list += (i ? ", " : "") + known_[i];
      throw ConfigError(path(item.key().c_str()) + ": unknown key (known keys: " + list + ")");
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

  static data::CorpusFile corpus_file(const std::string& where, const json& value) {
    constexpr const char* kExpected =
        "a file name or an object with \"path\" or \"source\" and \"target\"";
    data::CorpusFile file;
    if (value.is_string()) {
      file.path = value.get<std::string>();
      if (file.path.empty()) fail(where, kExpected, value);
      return file;
    }
    if (!value.is_object()) fail(where, kExpected, value);
    for (const auto& item : value.items()) {
      const std::string at = where + "." + item.key();
      if (item.key() == "weight") {
        if (!item.value().is_number()) fail(at, "a number", item.value());
        file.weight = item.value().get<double>();
        continue;
      }
      std::string* text = item.key() == "path"     ? &file.path
                          : item.key() == "source" ? &file.source
                          : item.key() == "target" ? &file.target
                                                   : nullptr;
      if (!text) throw ConfigError(at + ": unknown key (known keys: path, source, target, weight)");
      if (!item.value().is_string()) fail(at, "a file name", item.value());
      *text = item.value().get<std::string>();
    }
    return file;
  }

  [[noreturn]] static void fail(const std::string& path,
                                const std::string& expected,
                                const json& got) {
    throw ConfigError(path + ": expected " + expected + ", got " + got.dump());
  }

  const json& root_;
  std::string name_;
  const json* object_ = nullptr;
  std::vector<std::string> known_;
};

// Writes the fields config_fields() names, every one of them, into a JSON object.
class ConfigWriter {
 public:
  void section(const char* name) { section_ = &root_[name]; }
  void subsection(const char* name) { section_ = &(*section_)[name]; }

  template <class T>
  void operator()(const char* key, const T& field) {
    (*section_)[key] = field;
  }
  void operator()(const char* key, const int64_t& field, IntKind) { (*section_)[key] = field; }
  void operator()(const char* key, const double& seconds, DurationField) {
    (*section_)[key] = duration_text(seconds);
  }
  void operator()(const char* key, const std::vector<data::CorpusFile>& files) {
    json list = json::array();
    for (const data::CorpusFile& file : files) {
      json entry = file.is_aligned_pair() ? json{{"source", file.source}, {"target", file.target}}
                                          : json{{"path", file.path}};
      if (file.weight != 1.0) entry["weight"] = file.weight;
      list.push_back(std::move(entry));
    }
    (*section_)[key] = std::move(list);
  }
  template <class E>
  void operator()(const char* key, const E& field, const Choices<E>& choices) {
    (*section_)[key] = name_of(choices, field);
  }

  json take() { return std::move(root_); }

 private:
  json root_ = json::object();
  json* section_ = nullptr;
};

// Every configuration key, in one list that both reading and writing follow.
template <class Fields>
void config_fields(Fields& f, Config& c) {
  f.section("data");
  f("path", c.data.path);
  f("train", c.data.train);
  f("valid", c.data.valid);
  f("test", c.data.test);
  f("format", c.data.format, kFormats);
  f("max_words", c.data.max_words, IntKind::kNonNegative);
  f("max_length", c.data.max_length, IntKind::kNonNegative);
  f("max_length_ratio", c.data.max_length_ratio);
  f("valid_fraction", c.data.valid_fraction);
  f("test_fraction", c.data.test_fraction);
  f("seed", c.data.seed);
  f("group_by_source", c.data.group_by_source);
  f("dedupe", c.data.dedupe);
  f("drop_identical", c.data.drop_identical);
  f("reverse", c.data.reverse);
  f("source_lang", c.data.source_lang);
  f("target_lang", c.data.target_lang);

  f.section("text");
  f("clean", c.text.clean, kCleanModes);
  f("tokenizer", c.text.tokenizer, kTokenizers);
  f("min_freq", c.text.min_freq, IntKind::kPositive);
  f("vocab_size", c.text.vocab_size, IntKind::kPositive);
  f("shared_vocab", c.text.shared_vocab);
  f("model_type", c.text.model_type, kSubwordModels);
  f("character_coverage", c.text.character_coverage);
  f("sampling_nbest", c.text.sampling_nbest, IntKind::kAny);
  f("sampling_alpha", c.text.sampling_alpha);
  f("bpe_dropout", c.text.bpe_dropout);

  f.section("model");
  f("d_model", c.model.d_model, IntKind::kPositive);
  f("layers", c.model.layers, IntKind::kPositive);
  f("heads", c.model.heads, IntKind::kPositive);
  f("ff_mult", c.model.ff_mult, IntKind::kPositive);
  f("dropout", c.model.dropout);
  f("attention_dropout", c.model.attention_dropout);
  f("activation_dropout", c.model.activation_dropout);
  f("norm", c.model.norm, kNorms);
  f("tie_embeddings", c.model.tie_embeddings);
  f("share_embeddings", c.model.share_embeddings);
  f("scale_embeddings", c.model.scale_embeddings);

  f.section("train");
  f("batch_size", c.train.batch_size, IntKind::kPositive);
  f("max_tokens", c.train.max_tokens, IntKind::kNonNegative);
  f("epochs", c.train.epochs, IntKind::kPositive);
  f("max_steps", c.train.max_steps, IntKind::kNonNegative);
  f("max_time", c.train.max_time_seconds, DurationField{});
  f("lr", c.train.lr);
  f("schedule", c.train.schedule, kSchedules);
  f("warmup", c.train.warmup, IntKind::kPositive);
  f("label_smoothing", c.train.label_smoothing);
  f("clip_norm", c.train.clip_norm);
  f("early_stopping", c.train.early_stopping, IntKind::kNonNegative);
  f("seed", c.train.seed);
  f("device", c.train.device);
  f("threads", c.train.threads, IntKind::kNonNegative);
  f("log_every", c.train.log_every, IntKind::kPositive);
  f("save_every", c.train.save_every, IntKind::kNonNegative);
  f("average_last", c.train.average_last, IntKind::kNonNegative);
  f("precision", c.train.precision, kPrecisions);
  f("adam_beta1", c.train.adam_beta1);
  f("adam_beta2", c.train.adam_beta2);
  f("adam_eps", c.train.adam_eps);
  f("weight_decay", c.train.weight_decay);
  f("update_freq", c.train.update_freq, IntKind::kPositive);
  f("init_from", c.train.init_from);
  f("valid_every", c.train.valid_every, IntKind::kNonNegative);
  f("best_metric", c.train.best_metric, kBestMetrics);
  f("valid_bleu_sentences", c.train.valid_bleu_sentences, IntKind::kNonNegative);
  f("valid_beam_size", c.train.valid_beam_size, IntKind::kPositive);
  f.subsection("distributed");
  f("backend", c.train.distributed.backend, kBackends);
  f("timeout", c.train.distributed.timeout_seconds);
  f("bucket_mb", c.train.distributed.bucket_mb);

  f.section("decode");
  f("strategy", c.decode.strategy, kStrategies);
  f("beam_size", c.decode.beam_size, IntKind::kPositive);
  f("length_penalty", c.decode.length_penalty);
  f("n_best", c.decode.n_best, IntKind::kPositive);
  f("max_len", c.decode.max_len, IntKind::kNonNegative);
  f("temperature", c.decode.temperature);
  f("top_k", c.decode.top_k, IntKind::kNonNegative);
  f("top_p", c.decode.top_p);
  f("seed", c.decode.seed);
  f("batch_size", c.decode.batch_size, IntKind::kPositive);
  f("translators", c.decode.translators, IntKind::kNonNegative);
  f("threads", c.decode.threads, IntKind::kPositive);
  f("precision", c.decode.precision, kDecodePrecisions);

  f.section("serve");
  f("host", c.serve.host);
  f("port", c.serve.port, IntKind::kNonNegative);
  f("max_batch", c.serve.max_batch, IntKind::kPositive);
  f("max_wait_ms", c.serve.max_wait_ms, IntKind::kNonNegative);
  f("workers", c.serve.workers, IntKind::kPositive);
  f("http_threads", c.serve.http_threads, IntKind::kPositive);
  f("max_queue", c.serve.max_queue, IntKind::kPositive);
  f("timeout_ms", c.serve.timeout_ms, IntKind::kPositive);
  f("max_body_bytes", c.serve.max_body_bytes, IntKind::kPositive);
  f("max_sentences", c.serve.max_sentences, IntKind::kPositive);
  f("max_chars", c.serve.max_chars, IntKind::kPositive);
  f("max_beam_size", c.serve.max_beam_size, IntKind::kPositive);
}

constexpr const char* kSections[] = {"data",   "text",  "model",      "train",
                                     "decode", "serve", "description"};

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
  validate_section("serve", serve);
  if (model.share_embeddings && !text.shared_vocab) {
    throw ConfigError("model.share_embeddings: needs text.shared_vocab = true");
  }
}

Config config_from_json(const json& root) {
  if (!root.is_object()) {
    throw ConfigError("configuration: expected a JSON object, got " + root.dump());
  }
  for (const auto& item : root.items()) {
    if (std::find(std::begin(kSections), std::end(kSections), item.key()) == std::end(kSections)) {
      throw ConfigError(item.key() +
                        ": unknown section (known: data, text, model, train, decode, serve, "
                        "description)");
    }
  }
  Config config;
  ConfigReader reader(root);
  config_fields(reader, config);
  reader.finish_section();
  if (!config.data.train.empty()) {
    const json& data = root.at("data");
    if (data.contains("path") && data["path"] != "") {
      throw ConfigError(
          "data.train: name the training data either as data.path or as data.train, not both");
    }
    config.data.path.clear();
  }
  config.validate();
  return config;
}

json config_to_json(const Config& config) {
  ConfigWriter writer;
  Config copy = config;  // the field list takes a mutable configuration
  if (!copy.data.train.empty()) copy.data.path.clear();
  config_fields(writer, copy);
  return writer.take();
}

// The dotted path of the value being parsed, kept up to date by nlohmann's parse callback, so
// that an error raised inside a value (a number out of range) can name its key.
class KeyPathTracker {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        keys_.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!keys_.empty()) keys_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys_.empty()) keys_.back() = parsed.get<std::string>();
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

  std::string path() const {
    std::string dotted;
    for (const std::string& key : keys_) {
      if (key.empty()) continue;
      dotted += (dotted.empty() ? "" : ".") + key;
    }
    return dotted;
  }

 private:
  std::vector<std::string> keys_;
};

json read_config_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the configuration file");
  KeyPathTracker tracker;
  try {
    return json::parse(in, std::ref(tracker));
  } catch (const json::parse_error& error) {
    throw ConfigError(path + ": not valid JSON (" + error.what() + ")");
  } catch (const json::out_of_range& error) {
    // nlohmann: "[json.exception.out_of_range.406] number overflow parsing '1e999'"
    const std::string message = error.what();
    const std::size_t detail = message.find("] ");
    throw ConfigError(path + ": " + tracker.path() + ": " +
                      (detail == std::string::npos ? message : message.substr(detail + 2)));
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

Config resolve_config(json base, const ConfigOverrides& overrides) {
  for (const ConfigOverride& override : overrides)
    set_config_value(base, override.key, override.value);
  return config_from_json(base);
}

ConfigOverride parse_config_override(const std::string& assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigError("--set: expected section.key=value, got \"" + assignment + "\"");
  }
  const std::string text = assignment.substr(equals + 1);
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text;
  return {assignment.substr(0, equals), value};
}

void set_config_value(json& root, const std::string& dotted_key, const json& value) {
  const std::size_t dot = dotted_key.find('.');
  if (dot == std::string::npos) throw ConfigError(dotted_key + ": expected section.key");
  json* object = &root;
  std::size_t start = 0;
  for (std::size_t end = dot; end != std::string::npos; end = dotted_key.find('.', start)) {
    object = &(*object)[dotted_key.substr(start, end - start)];  // train, then train.distributed
    if (!object->is_object()) *object = json::object();
    start = end + 1;
  }
  (*object)[dotted_key.substr(start)] = value;
  // One corpus named on the command line (--data) replaces the configuration's list.
  if (dotted_key == "data.path") object->erase("train");
}

}  // namespace nmt
