#include "cli/config_flags.h"

#include "nmt/error.h"

namespace nmt::cli {

CLI::Option* ConfigFlags::add_switch(const std::string& flag,
                                     const std::string& key,
                                     const std::string& help) {
  return app_.add_flag_callback(
      flag,
      [this, key] {
        overrides_.push_back({key, true});
      },
      describe(help, key));
}

CLI::Option* ConfigFlags::add_set_option() {
  return app_.add_option_function<std::vector<std::string>>(
      "--set",
      [this](const std::vector<std::string>& assignments) {
        for (const std::string& assignment : assignments) {
          try {
            overrides_.push_back(parse_config_override(assignment));
          } catch (const ConfigError& error) {
            // Thrown while CLI11 parses: its own error type reaches main's usage handler (exit 2).
            throw CLI::ValidationError(error.what());
          }
        }
      },
      "Override any configuration key, e.g. --set model.dropout=0.3 --set text.vocab_size=4000 "
      "(repeatable; applied with the other flags in command-line order)");
}

std::string ConfigFlags::describe(const std::string& help, const std::string& key) {
  const nlohmann::json defaults = config_to_json(Config{});
  const std::size_t dot = key.find('.');
  const nlohmann::json& value = defaults.at(key.substr(0, dot)).at(key.substr(dot + 1));
  return help + " (overrides " + key +
         "; default: " + (value.is_string() ? value.get<std::string>() : value.dump()) + ")";
}

}  // namespace nmt::cli
