// nmt's typed configuration: one options struct per section, read from and written to JSON here
// and nowhere else (STYLE.md rule 7).
//
//   {"data": {...}, "text": {...}, "model": {...}, "train": {...}, "decode": {...}, "serve": {...},
//    "runtime": {...}}
//
// Each module reads and checks its own section (include/nmt/<module>/config_fields.h, its
// options' validate()); this, the run level, assembles them and checks the rules that join them.
// Missing keys keep the notebook's defaults (except data.max_words: the notebook's 15-word limit is
// set in configs/seed.json, not imposed on every corpus). An unknown key, a wrong type or an
// out-of-range value throws a ConfigError carrying the key path ("data.max_words") and, from
// load_config, its origin: the file, or "command line" where a flag set the key. Values are
// quoted shortened (at most about 80 bytes). Torch-free; never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/data/dataset.h"
#include "nmt/decode/options.h"
#include "nmt/model/options.h"
#include "nmt/run/runtime_options.h"
#include "nmt/serve/options.h"
#include "nmt/text/tokenizer.h"
#include "nmt/train/options.h"

namespace nmt {

struct Config {
  data::CorpusOptions data;
  text::TextOptions text;
  model::TransformerOptions model;
  train::TrainOptions train;
  decode::SearchOptions decode;
  serve::ServeOptions serve;
  run::RuntimeOptions runtime;

  // Validates every section and the rules that join them; errors name the key from the top
  // ("train.epochs").
  void validate() const;
};

// A command-line override of one configuration key: {"train.threads", 4}.
struct ConfigOverride {
  std::string key;  // "section.key"
  nlohmann::json value;
};
using ConfigOverrides = std::vector<ConfigOverride>;

// Parses and validates.
Config config_from_json(const nlohmann::json& json);
nlohmann::json config_to_json(const Config& config);

// Reads a JSON file; throws ConfigError naming the file when it is missing or not JSON, when an
// object names a key twice ("c.json:7: train.epochs: duplicate key (also set at line 3); ...")
// or when a value is nested deeper than 32 levels. Such a document is refused while it is parsed,
// so nothing that walks values recursively ever sees one.
nlohmann::json read_config_json(const std::string& path);
// read_config_json, then resolve_config with the overrides. Every ConfigError about a key has
// as its origin() where the offending value came from: the file ("c.json: data.max_words:
// expected ...") or, for a key that a flag set (or the object or list holding it), "command line".
Config load_config(const std::string& path, const ConfigOverrides& overrides = {});
// The same for a file already read: `file` is what read_config_json(path) returned.
Config load_config(nlohmann::json file, const std::string& path, const ConfigOverrides& overrides);

// Writes the resolved configuration (every key, defaults included), atomically.
void save_config(const std::string& path, const Config& config);

// Sets json[section][key] = value for a command-line override of a config key ("train.threads").
void set_config_value(nlohmann::json& json,
                      const std::string& dotted_key,
                      const nlohmann::json& value);

// "section.key=value" (the --set flag): the value is read as JSON when it is JSON (512, 0.3,
// true, "text", [1, 2]) and as a string otherwise (post, cpu). Throws ConfigError without "=",
// and for a JSON value that read_config_json would refuse (nested too deep, a duplicate key).
ConfigOverride parse_config_override(const std::string& assignment);

// base with the overrides applied in order, parsed and validated once, so that a bad flag value
// gets the same message as a bad value in the file.
Config resolve_config(nlohmann::json base, const ConfigOverrides& overrides);

// Where a command that does not train runs its models, and the notes to show about it.
struct RuntimeChoice {
  std::string device;
  std::string device_key = "runtime.device";  // the key `device` came from, for its errors
  int64_t threads = 0;
  std::vector<std::string> notes;  // deprecations: train.device/train.threads read in its place
};
// runtime.device and runtime.threads of config (resolved from the run's file `path`, whose JSON
// is `file`, and the overrides), except where the old keys still decide, each with a note saying
// what to set instead: train.device or train.threads set on the command line without their
// runtime key, or set (to other than their defaults) in a run's file written before the runtime
// section existed.
RuntimeChoice choose_runtime(const nlohmann::json& file,
                             const std::string& path,
                             const Config& config,
                             const ConfigOverrides& overrides);

}  // namespace nmt
