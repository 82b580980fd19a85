#include "nmt/config.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
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
    {"word", text::TokenizerKind::kWord},
    {"sentencepiece", text::TokenizerKind::kSentencePiece},
    {"marian", text::TokenizerKind::kMarian}};
const Choices<text::SubwordModel> kSubwordModels = {{"unigram", text::SubwordModel::kUnigram},
                                                    {"bpe", text::SubwordModel::kBpe}};
const Choices<model::NormPosition> kNorms = {{"post", model::NormPosition::kPost},
                                             {"pre", model::NormPosition::kPre}};
const Choices<model::Activation> kActivations = {{"relu", model::Activation::kRelu},
                                                 {"gelu", model::Activation::kGelu},
                                                 {"swish", model::Activation::kSwish}};
const Choices<model::PositionLayout> kPositionLayouts = {
    {"interleaved", model::PositionLayout::kInterleaved}, {"split", model::PositionLayout::kSplit}};
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
const Choices<decode::BeamStop> kBeamStops = {{"first", decode::BeamStop::kFirst},
                                              {"best", decode::BeamStop::kBest}};

template <class E>
const char* name_of(const Choices<E>& choices, E value) {
  for (const auto& [name, choice] : choices) {
    if (choice == value) return name;
  }
  return "?";
}

// Appends value as JSON text, stopping once out holds more than check::kMaxQuotedBytes and
// nesting no deeper than 8 levels, so that describing a value costs little whatever its size.
void append_bounded(const json& value, int depth, std::string& out) {
  if (value.is_structured()) {
    const bool is_array = value.is_array();
    out += is_array ? '[' : '{';
    if (depth >= 8 && !value.empty()) out += "...";
    bool is_first = true;
    for (const auto& item : value.items()) {
      if (depth >= 8 || out.size() > check::kMaxQuotedBytes) break;
      if (!is_first) out += ',';
      is_first = false;
      if (!is_array) {
        append_bounded(json(item.key()), depth + 1, out);
        out += ':';
      }
      append_bounded(item.value(), depth + 1, out);
    }
    out += is_array ? ']' : '}';
  } else if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    out += json(text.substr(0, check::kMaxQuotedBytes + 1))
               .dump(-1, ' ', false, json::error_handler_t::replace);
  } else {
    out += value.dump();
  }
}

// value as JSON text for a message: whole when short, else cut like check::quote, so that a 50 MB
// string or a huge array never becomes a 50 MB line: "xxxx..." (52428800 bytes), [0,1,2,...
// (100000 elements).
std::string describe(const json& value) {
  if (value.is_string()) {
    const auto& whole = value.get_ref<const std::string&>();
    const std::string shortened = check::shorten(whole);
    if (shortened == whole) return value.dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string prefix = shortened.substr(0, shortened.rfind("... ("));
    const std::string quoted = json(prefix).dump(-1, ' ', false, json::error_handler_t::replace);
    return quoted.substr(0, quoted.size() - 1) + "...\" (" + std::to_string(whole.size()) +
           " bytes)";
  }
  std::string text;
  append_bounded(value, 0, text);
  if (text.size() <= check::kMaxQuotedBytes) return text;
  const std::string cut = check::shorten(text);
  return cut.substr(0, cut.rfind(" (")) + " (" + std::to_string(value.size()) +
         (value.is_array() ? " elements)" : " keys)");
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
      throw ConfigError(path(check::shorten(item.key()).c_str()) +
                        ": unknown key (known keys: " + list + ")");
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
      const std::string at = where + "." + check::shorten(item.key());
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
    throw ConfigError(path + ": expected " + expected + ", got " + describe(got));
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
  f("vocab_from", c.text.vocab_from);

  f.section("model");
  f("d_model", c.model.d_model, IntKind::kPositive);
  f("layers", c.model.layers, IntKind::kPositive);
  f("encoder_layers", c.model.encoder_layers, IntKind::kNonNegative);
  f("decoder_layers", c.model.decoder_layers, IntKind::kNonNegative);
  f("heads", c.model.heads, IntKind::kPositive);
  f("ff_mult", c.model.ff_mult, IntKind::kPositive);
  f("dropout", c.model.dropout);
  f("attention_dropout", c.model.attention_dropout);
  f("activation_dropout", c.model.activation_dropout);
  f("norm", c.model.norm, kNorms);
  f("tie_embeddings", c.model.tie_embeddings);
  f("share_embeddings", c.model.share_embeddings);
  f("scale_embeddings", c.model.scale_embeddings);
  f("activation", c.model.activation, kActivations);
  f("positions", c.model.positions, kPositionLayouts);

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
  f("keep_epochs", c.train.keep_epochs, IntKind::kNonNegative);
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
  f("beam_stop", c.decode.beam_stop, kBeamStops);
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
  f("target_lang", c.decode.target_lang);

  f.section("serve");
  f("host", c.serve.host);
  f("port", c.serve.port, IntKind::kNonNegative);
  f("max_batch", c.serve.max_batch, IntKind::kPositive);
  f("max_wait_ms", c.serve.max_wait_ms, IntKind::kNonNegative);
  f("workers", c.serve.workers, IntKind::kPositive);
  f("http_threads", c.serve.http_threads, IntKind::kPositive);
  f("max_connections", c.serve.max_connections, IntKind::kPositive);
  f("idle_timeout_ms", c.serve.idle_timeout_ms, IntKind::kPositive);
  f("read_timeout_ms", c.serve.read_timeout_ms, IntKind::kPositive);
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
  if (!text.vocab_from.empty() && !train.init_from.empty()) {
    throw ConfigError(
        "text.vocab_from: not with train.init_from, whose run brings its own vocabularies");
  }
}

Config config_from_json(const json& root) {
  if (!root.is_object()) {
    throw ConfigError("configuration: expected a JSON object, got " + describe(root));
  }
  for (const auto& item : root.items()) {
    if (std::find(std::begin(kSections), std::end(kSections), item.key()) == std::end(kSections)) {
      throw ConfigError(check::shorten(item.key()) +
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

namespace {

// Deeper than any configuration needs (a corpus entry sits at level 4), shallow enough that
// nothing that walks a value recursively can exhaust the stack.
constexpr int kMaxConfigDepth = 32;

// An iterator over the text being parsed that records how far nlohmann's parser has read, so that
// a parse callback can name the line of what it just saw.
class ReadPosition {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ReadPosition(const char* at, const char** furthest) : at_(at), furthest_(furthest) {}
  reference operator*() const { return *at_; }
  ReadPosition& operator++() {
    *furthest_ = ++at_;
    return *this;
  }
  ReadPosition operator++(int) {
    ReadPosition before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ReadPosition& other) const { return at_ == other.at_; }
  bool operator!=(const ReadPosition& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** furthest_;
};

// Follows nlohmann's parse callback through a document: the dotted path of the value being
// parsed (so that an error inside a value, a number out of range, can name its key), the line
// each key of each open object was read on, and the depth. A key given twice in one object, or a
// value nested deeper than kMaxConfigDepth, throws ConfigError "where:line: key.path: reason"
// while the parser reads it, so no such document is ever built.
class ConfigParseTracker {
 public:
  // text: the whole document, which must outlive the tracker; where: the file (or flag) it came
  // from.
  ConfigParseTracker(const std::string& text, std::string where)
      : text_(text), read_up_to_(text.data()), where_(std::move(where)) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxConfigDepth) {
          fail("nested deeper than " + std::to_string(kMaxConfigDepth) + " levels");
        }
        levels_.emplace_back();
        levels_.back().is_object = event == json::parse_event_t::object_start;
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!levels_.empty()) levels_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!levels_.empty()) add_key(parsed.get<std::string>());
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

  // The document's first and past-the-end characters, as iterators that move the read position.
  ReadPosition begin() { return {text_.data(), &read_up_to_}; }
  ReadPosition end() { return {text_.data() + text_.size(), &read_up_to_}; }

  // "a.b.c" of the value being parsed; long keys shortened.
  std::string path() const {
    std::string dotted;
    for (const Level& level : levels_) {
      if (!level.is_object || level.key.empty()) continue;
      dotted += (dotted.empty() ? "" : ".") + check::shorten(level.key);
    }
    return dotted;
  }

 private:
  struct Level {
    bool is_object = false;
    std::string key;                           // the key being read (objects)
    std::map<std::string, std::size_t> lines;  // line of each key read so far
  };

  // 1-based line of the parser's position.
  std::size_t line() const {
    return 1 + static_cast<std::size_t>(std::count(text_.data(), read_up_to_, '\n'));
  }

  void add_key(const std::string& key) {
    Level& level = levels_.back();
    level.key = key;
    const auto [first, is_new] = level.lines.emplace(key, line());
    if (!is_new) {
      fail("duplicate key (also set at line " + std::to_string(first->second) +
           "); name each key once");
    }
  }

  [[noreturn]] void fail(const std::string& reason) const {
    const std::string key = path();
    throw ConfigError(where_ + ":" + std::to_string(line()) + ": " +
                      (key.empty() ? "" : key + ": ") + reason);
  }

  const std::string& text_;
  const char* read_up_to_;
  std::string where_;
  std::vector<Level> levels_;
};

// text parsed as JSON under the tracker's rules; where names it in errors ("c.json: not valid
// JSON (...)").
json parse_tracked(const std::string& text, const std::string& where) {
  ConfigParseTracker tracker(text, where);
  try {
    return json::parse(tracker.begin(), tracker.end(), std::ref(tracker));
  } catch (const json::parse_error& error) {
    throw ConfigError(where + ": not valid JSON (" + check::shorten(error.what()) + ")");
  } catch (const json::out_of_range& error) {
    // nlohmann: "[json.exception.out_of_range.406] number overflow parsing '1e999'"
    const std::string message = error.what();
    const std::size_t detail = message.find("] ");
    throw ConfigError(
        where + ": " + tracker.path() + ": " +
        check::shorten(detail == std::string::npos ? message : message.substr(detail + 2)));
  }
}

// The key path a ConfigError message starts with ("train.epochs: expected ...").
std::string error_key(const std::string& message) { return message.substr(0, message.find(": ")); }

// Whether the key (or the object or list holding it) was set on the command line.
bool is_overridden(const std::string& key, const ConfigOverrides& overrides) {
  for (const ConfigOverride& override : overrides) {
    if (key == override.key || key.rfind(override.key + ".", 0) == 0 ||
        key.rfind(override.key + "[", 0) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

json read_config_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_tracked(text.str(), path);
}

Config load_config(const std::string& path, const ConfigOverrides& overrides) {
  json root = read_config_json(path);
  try {
    return resolve_config(std::move(root), overrides);
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    const bool is_from_flag = is_overridden(error_key(message), overrides);
    throw ConfigError((is_from_flag ? std::string("command line") : path) + ": " + message);
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
    throw ConfigError("--set: expected section.key=value, got " + check::quote(assignment));
  }
  const std::string key = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  if (!json::accept(text)) return {key, text};  // a bare word: post, cpu
  return {key, parse_tracked(text, "--set " + check::shorten(key))};
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
