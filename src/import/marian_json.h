// What the Marian directory reader (marian_directory.cpp) reads its files with: size-bounded file
// reads, JSON parsed with a depth limit and duplicate keys refused, and the keys of an object read
// with messages that name the file and the key. Every failure throws ConfigError
// "source: problem". Private to src/import/.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "refusal.h"

namespace nmt::import::detail {

// A JSON value for a message: strings quoted and cut, containers by kind, scalars as JSON.
std::string describe(const nlohmann::json& value);

// text as JSON; source names it in messages. Nesting deeper than 8 levels, a key given twice in
// one object, malformed JSON and numbers beyond a double are refused.
nlohmann::json parse_json(const std::string& text, const std::string& source);
// Likewise, and the document must be an object.
nlohmann::json parse_object(const std::string& text, const std::string& source);

// stat() of path, symbolic links followed; nullopt when nothing is there.
std::optional<struct stat> stat_of(const std::string& path);
// Whether path is (or links to) a regular file.
bool is_regular_file(const std::string& path);
// The text of an optional file, nullopt when it does not exist; refused when it is not a regular
// file or holds more than max_bytes.
std::optional<std::string> read_optional(const std::string& path, uint64_t max_bytes);
// Likewise for a file that must exist; why ends the message when it is missing.
std::string read_required(const std::string& path, uint64_t max_bytes, const std::string& why);
// dir/name, with one slash between them.
std::string join(const std::string& dir, const std::string& name);

// text in single quotes for a POSIX shell.
std::string shell_quote(const std::string& text);

// The keys of one JSON object, read with messages "source: key: expected ..., got ...". Holds
// references: object and source must outlive it.
class Fields {
 public:
  Fields(const nlohmann::json& object, const std::string& source)
      : object_(object), source_(source) {}

  const std::string& source() const { return source_; }
  // The value of key, nullptr when absent.
  const nlohmann::json* find(const char* key) const;
  // Likewise, and nullptr for null too (Python's None: the default applies).
  const nlohmann::json* present(const char* key) const;

  [[noreturn]] void fail_key(const std::string& key, const std::string& problem) const;
  [[noreturn]] void expected(const std::string& key,
                             const std::string& what,
                             const nlohmann::json& got) const;

  // An integer in [min, max] (min 0 or 1).
  int64_t integer(const char* key, int64_t min, int64_t max) const;
  // Likewise, fallback when absent or null.
  int64_t integer_or(const char* key, int64_t fallback, int64_t min, int64_t max) const;
  bool boolean_or(const char* key, bool fallback) const;
  // Any number (JSON has no infinity or NaN).
  double number_or(const char* key, double fallback) const;
  // A probability in [0, 1), as nmt's TransformerOptions::validate() takes dropouts.
  double fraction_or(const char* key, double fallback) const;
  std::string string_or(const char* key, const std::string& fallback) const;
  // A token id below limit, which limit_key of config.json names.
  int64_t id(const std::string& key,
             const nlohmann::json& value,
             int64_t limit,
             const std::string& limit_key) const;

 private:
  int64_t to_integer(const char* key,
                     const nlohmann::json& value,
                     const char* kind,
                     int64_t min,
                     int64_t max) const;

  const nlohmann::json& object_;
  const std::string& source_;
};

}  // namespace nmt::import::detail
