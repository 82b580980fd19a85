#include "nmt/run/config.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "nmt/check.h"
#include "nmt/config_fields.h"
#include "nmt/data/config_fields.h"
#include "nmt/decode/config_fields.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/model/config_fields.h"
#include "nmt/serve/config_fields.h"
#include "nmt/text/config_fields.h"
#include "nmt/train/config_fields.h"

namespace nmt {
namespace {

using config::ConfigReader;
using config::ConfigWriter;
using config::describe;
using nlohmann::json;

// Every section, each listed by its module, in the order config.json shows them.
template <class Fields>
void config_fields(Fields& f, Config& c) {
  f.section("data");
  data::corpus_fields(f, c.data);
  f.section("text");
  text::text_fields(f, c.text);
  f.section("model");
  model::model_fields(f, c.model);
  f.section("train");
  train::train_fields(f, c.train);
  f.section("decode");
  decode::decode_fields(f, c.decode);
  f.section("serve");
  serve::serve_fields(f, c.serve);
  f.section("runtime");
  run::runtime_fields(f, c.runtime);
}

constexpr const char* kSections[] = {"data",   "text",  "model",   "train",
                                     "decode", "serve", "runtime", "description"};

template <class Options>
void validate_section(const char* name, const Options& options) {
  try {
    options.validate();
  } catch (const ConfigError& error) {
    throw error.in_section(name);
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
  validate_section("runtime", runtime);
  if (model.share_embeddings && !text.shared_vocab) {
    throw ConfigError("model.share_embeddings", "needs text.shared_vocab = true");
  }
  if (data.augment_placeholders > 0 && text.tokenizer != text::TokenizerKind::kSentencePiece) {
    throw ConfigError("data.augment_placeholders",
                      "needs text.tokenizer \"sentencepiece\", whose vocabulary keeps the "
                      "placeholders ⦅1⦆ … ⦅9⦆ whole");
  }
  if (!text.vocab_from.empty() && !train.init_from.empty()) {
    throw ConfigError("text.vocab_from",
                      "not with train.init_from, whose run brings its own vocabularies");
  }
}

Config config_from_json(const json& root) {
  if (!root.is_object()) {
    throw ConfigError("configuration: expected a JSON object, got " + describe(root));
  }
  for (const auto& item : root.items()) {
    if (std::find(std::begin(kSections), std::end(kSections), item.key()) == std::end(kSections)) {
      throw ConfigError(check::shorten(item.key()),
                        "unknown section (known: data, text, model, train, decode, serve, "
                        "runtime, description)");
    }
  }
  Config config;
  ConfigReader reader(root);
  config_fields(reader, config);
  reader.finish_section();
  if (!config.data.train.empty()) {
    const json& data = root.at("data");
    if (data.contains("path") && data["path"] != "") {
      throw ConfigError("data.train",
                        "name the training data either as data.path or as data.train, not both");
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
  if (!in) throw ConfigError("cannot open the configuration file").from(path);
  std::ostringstream text;
  text << in.rdbuf();
  return config::parse_document(text.str(), path);
}

Config load_config(const std::string& path, const ConfigOverrides& overrides) {
  return load_config(read_config_json(path), path, overrides);
}

Config load_config(json file, const std::string& path, const ConfigOverrides& overrides) {
  try {
    return resolve_config(std::move(file), overrides);
  } catch (const ConfigError& error) {
    const bool is_from_flag = !error.key().empty() && is_overridden(error.key(), overrides);
    throw error.from(is_from_flag ? "command line" : path);
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
  return {key, config::parse_document(text, "--set " + check::shorten(key))};
}

void set_config_value(json& root, const std::string& dotted_key, const json& value) {
  const std::size_t dot = dotted_key.find('.');
  if (dot == std::string::npos) throw ConfigError(dotted_key, "expected section.key");
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

namespace {

// One key of the runtime section (device or threads) for a command that does not train; true
// when its train key was read in its place.
template <typename Value>
bool choose_runtime_key(const std::string& key,
                        const Value& train_value,
                        const Value& train_default,
                        const std::string& file_note,
                        const ConfigOverrides& overrides,
                        Value& chosen,
                        std::vector<std::string>& notes) {
  const std::string runtime_key = "runtime." + key;
  const std::string train_key = "train." + key;
  if (is_overridden(runtime_key, overrides)) return false;
  const json shown = train_value;
  if (is_overridden(train_key, overrides)) {
    chosen = train_value;
    notes.push_back(train_key + " " + shown.dump() +
                    " set on the command line of a command that does not train is deprecated: "
                    "set " +
                    runtime_key + " (--" + key + ") instead");
    return true;
  }
  if (!file_note.empty() && train_value != train_default) {
    chosen = train_value;
    notes.push_back(file_note + train_key + " " + shown.dump() +
                    " is read in its place for now; set " + runtime_key + " (--" + key +
                    ") for commands that do not train");
    return true;
  }
  return false;
}

}  // namespace

RuntimeChoice choose_runtime(const json& file,
                             const std::string& path,
                             const Config& config,
                             const ConfigOverrides& overrides) {
  RuntimeChoice choice;
  choice.device = config.runtime.device;
  choice.threads = config.runtime.threads;
  const bool is_older_run = file.is_object() && !file.contains("runtime");
  const std::string file_note =
      is_older_run ? path + " has no runtime section (written before it existed): " : "";
  const train::TrainOptions defaults;
  if (choose_runtime_key("device", config.train.device, defaults.device, file_note, overrides,
                         choice.device, choice.notes)) {
    choice.device_key = "train.device";
  }
  choose_runtime_key("threads", config.train.threads, defaults.threads, file_note, overrides,
                     choice.threads, choice.notes);
  return choice;
}

}  // namespace nmt
