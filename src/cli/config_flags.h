// Command-line flags that override configuration keys (`--threads 4` sets train.threads). Each
// flag records an override at parse time; the library applies them to a base configuration and
// validates once (nmt::resolve_config), so a bad flag value gets the same message as a bad config
// value.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "nmt/run/config.h"

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
          overrides_.push_back({key, value});
        },
        describe(help, key));
  }

  // Adds a boolean --flag that sets the config key to true.
  CLI::Option* add_switch(const std::string& flag, const std::string& key, const std::string& help);

  // Adds --set section.key=value (repeatable) for any key of the configuration.
  CLI::Option* add_set_option();

  // The overrides given, in command-line order.
  const ConfigOverrides& overrides() const { return overrides_; }

 private:
  // "help (overrides key; default: value)", the default read from a default Config.
  static std::string describe(const std::string& help, const std::string& key);

  CLI::App& app_;
  ConfigOverrides overrides_;
};

}  // namespace nmt::cli
