// How a configuration section is read from and written to JSON, knowing no module: each module
// lists its section's keys once, in a function template over a field visitor,
//
//   template <class Fields>
//   void text_fields(Fields& f, TextOptions& o) {
//     f("clean", o.clean, kCleanModes);
//     f("vocab_size", o.vocab_size, IntKind::kPositive);
//   }
//
// and both visitors follow that list: ConfigReader checks each value's type and range and refuses
// keys no field claimed, ConfigWriter writes every field. nmt/run/config.h assembles the sections.
// Every ConfigError message starts with the key path ("text.vocab_size: expected a positive
// integer, got 0"); values are quoted shortened. Torch-free; never logs.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace nmt::config {

using nlohmann::json;

// An enum's names in the configuration, {"pre", NormPosition::kPre}, ...
template <class E>
using Choices = std::vector<std::pair<const char*, E>>;

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

// A field of a type that its module reads and writes itself (data's corpus lists): read(value,
// path) from the JSON value at key path, write() to JSON.
template <class T>
struct FieldCodec {
  std::function<T(const json& value, const std::string& path)> read;
  std::function<json(const T& field)> write;
};

// value as JSON text for a message: whole when short, else cut like check::quote, so that a 50 MB
// string or a huge array never becomes a 50 MB line: "xxxx..." (52428800 bytes), [0,1,2,...
// (100000 elements).
std::string describe(const json& value);

// text parsed as a JSON configuration document; where (a file, a flag) names it in errors: "c.json:
// not valid JSON (...)", and, while the parser reads them so that no such document is ever built,
// "c.json:7: train.epochs: duplicate key (also set at line 3); name each key once" and a value
// nested deeper than 32 levels.
json parse_document(const std::string& text, const std::string& where);

// Throws ConfigError "path: expected <expected>, got <value>".
[[noreturn]] void fail(const std::string& path, const std::string& expected, const json& got);

// Reads the fields a section's list names, checking types and ranges, and refuses keys no field
// claimed.
class ConfigReader {
 public:
  explicit ConfigReader(const json& root) : root_(root) {}

  void section(const char* name);
  // An object inside the current section (train.distributed); its keys are read next.
  void subsection(const char* name);

  void operator()(const char* key, int64_t& field, IntKind kind);
  void operator()(const char* key, uint64_t& field);
  void operator()(const char* key, double& field);
  void operator()(const char* key, double& seconds, DurationField);
  void operator()(const char* key, bool& field);
  void operator()(const char* key, std::string& field);

  template <class T>
  void operator()(const char* key, T& field, const FieldCodec<T>& codec) {
    if (const json* value = find(key)) field = codec.read(*value, path(key));
  }

  template <class E>
  void operator()(const char* key, E& field, const Choices<E>& choices) {
    const json* value = find(key);
    if (!value) return;
    std::vector<const char*> names;
    for (const auto& [name, choice] : choices) {
      if (value->is_string() && *value == name) {
        field = choice;
        return;
      }
      names.push_back(name);
    }
    fail_choice(path(key), names, *value);
  }

  // Throws for a key of the current section that no field asked for.
  void finish_section() const;

 private:
  const json* find(const char* key);
  std::string path(const char* key) const { return name_ + "." + key; }
  [[noreturn]] static void fail_choice(const std::string& path,
                                       const std::vector<const char*>& names,
                                       const json& got);

  const json& root_;
  std::string name_;
  const json* object_ = nullptr;
  std::vector<std::string> known_;
};

// Writes every field a section's list names into a JSON object.
class ConfigWriter {
 public:
  void section(const char* name) { section_ = &root_[name]; }
  void subsection(const char* name) { section_ = &(*section_)[name]; }

  template <class T>
  void operator()(const char* key, const T& field) {
    (*section_)[key] = field;
  }
  void operator()(const char* key, const int64_t& field, IntKind) { (*section_)[key] = field; }
  void operator()(const char* key, const double& seconds, DurationField);
  template <class T>
  void operator()(const char* key, const T& field, const FieldCodec<T>& codec) {
    (*section_)[key] = codec.write(field);
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

}  // namespace nmt::config
