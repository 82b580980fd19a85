// Command-line flags that override configuration keys (`--threads 4` sets train.threads). Each
// flag records a JSON value at parse time; resolve() applies them to a base configuration and
// validates once, so a bad flag value gets the same message as a bad config value.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "nmt/config.h"

namespace nmt::cli {

class ConfigFlags {
 public:
  explicit ConfigFlags(CLI::App& app) : app_(app) {}

  // Adds --flag that overrides the config key (e.g. "train.threads").
  template <class T>
  CLI::Option* add(const std::string& flag, const std::string& key, const std::string& help) {
    return app_.add_option_function<T>(
        flag,
        [this, key](const T& value) {
          overrides_.push_back([key, value](nlohmann::json& json) { set_config_value(json, key, value); });
        },
        describe(help, key));
  }

  // Adds a boolean --flag that sets the config key to true.
  CLI::Option* add_switch(const std::string& flag, const std::string& key, const std::string& help);

  // Applies the recorded overrides to base and parses the result.
  Config resolve(nlohmann::json base) const;

 private:
  // "help (overrides key; default: value)", the default read from a default Config.
  static std::string describe(const std::string& help, const std::string& key);

  CLI::App& app_;
  std::vector<std::function<void(nlohmann::json&)>> overrides_;
};

}  // namespace nmt::cli
