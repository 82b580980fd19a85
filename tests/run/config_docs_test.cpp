// docs/configuration.md documents every key of the configuration, with its default: the keys come
// from the code (the resolved configuration of an empty file, config_to_json), so a key added to
// config.cpp without a row fails here, as does a row for a key that no longer exists or a default
// that changed. A row is a Markdown table line whose first cell is the key path in backticks and
// whose second cell starts with the default in backticks:
//   | `train.max_tokens` | `0` | meaning |
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "nmt/run/config.h"
#include "test_utils.h"

namespace nmt {
namespace {

using nlohmann::json;

const char* const kPage = "docs/configuration.md";

// Every leaf of the configuration as "section.key" (nested objects such as train.distributed give
// "train.distributed.timeout"), with its default as the page shows it: text without JSON quotes
// ("" for empty text), anything else as JSON.
void collect_keys(const json& node,
                  const std::string& prefix,
                  std::map<std::string, std::string>& keys) {
  for (const auto& item : node.items()) {
    const std::string path = prefix.empty() ? item.key() : prefix + "." + item.key();
    const json& value = item.value();
    if (value.is_object() && !value.empty()) {
      collect_keys(value, path, keys);
    } else if (value.is_string()) {
      keys[path] = value.get<std::string>().empty() ? "\"\"" : value.get<std::string>();
    } else {
      keys[path] = value.dump();
    }
  }
}

std::map<std::string, std::string> code_keys() {
  std::map<std::string, std::string> keys;
  collect_keys(config_to_json(Config{}), "", keys);
  return keys;
}

// Key path -> the default its row shows.
std::map<std::string, std::string> documented_keys() {
  std::ifstream page(testing::source_dir() + "/" + kPage);
  EXPECT_TRUE(page) << "cannot read " << kPage;
  const std::regex row(R"(^\|\s*`([a-z_]+(?:\.[a-z_0-9]+)+)`\s*\|\s*(?:`([^`]*)`)?)");
  std::map<std::string, std::string> keys;
  std::string line;
  while (std::getline(page, line)) {
    std::smatch match;
    if (!std::regex_search(line, match, row)) continue;
    EXPECT_EQ(keys.count(match[1]), 0u) << kPage << " has two rows for " << match[1];
    keys[match[1]] = match[2];
  }
  return keys;
}

TEST(ConfigDocsTest, EveryKeyHasARowWithItsDefault) {
  const std::map<std::string, std::string> documented = documented_keys();
  const std::map<std::string, std::string> keys = code_keys();
  ASSERT_GT(keys.size(), 50u);  // the reading of the code works
  for (const auto& [key, value] : keys) {
    const auto row = documented.find(key);
    if (row == documented.end()) {
      ADD_FAILURE() << kPage << " has no row for the configuration key " << key
                    << "; add one to its section's table: | `" << key << "` | `" << value
                    << "` | what it does |";
      continue;
    }
    EXPECT_EQ(row->second, value) << kPage << ": the default of " << key;
  }
}

TEST(ConfigDocsTest, EveryRowNamesAKey) {
  const std::map<std::string, std::string> keys = code_keys();
  for (const auto& [key, value] : documented_keys()) {
    EXPECT_EQ(keys.count(key), 1u) << kPage << " has a row for " << key
                                   << ", which is not a configuration key (renamed or removed?)";
  }
}

}  // namespace
}  // namespace nmt
