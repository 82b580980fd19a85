#include "cli/config_flags.h"

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

std::string ConfigFlags::describe(const std::string& help, const std::string& key) {
  const nlohmann::json defaults = config_to_json(Config{});
  const std::size_t dot = key.find('.');
  const nlohmann::json& value = defaults.at(key.substr(0, dot)).at(key.substr(dot + 1));
  return help + " (overrides " + key +
         "; default: " + (value.is_string() ? value.get<std::string>() : value.dump()) + ")";
}

}  // namespace nmt::cli
