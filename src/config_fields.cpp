#include "nmt/config_fields.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"

namespace nmt::config {
namespace {

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

}  // namespace

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

void fail(const std::string& path, const std::string& expected, const json& got) {
  throw ConfigError(path, "expected " + expected + ", got " + describe(got));
}

void ConfigReader::section(const char* name) {
  finish_section();
  name_ = name;
  known_.clear();
  object_ = nullptr;
  const auto it = root_.find(name_);
  if (it == root_.end()) return;
  if (!it->is_object()) fail(name_, "an object", *it);
  object_ = &*it;
}

void ConfigReader::subsection(const char* name) {
  const json* value = find(name);
  finish_section();
  name_ += std::string(".") + name;
  known_.clear();
  object_ = nullptr;
  if (!value) return;
  if (!value->is_object()) fail(name_, "an object", *value);
  object_ = value;
}

void ConfigReader::operator()(const char* key, int64_t& field, IntKind kind) {
  const json* value = find(key);
  if (!value) return;
  const char* expected = kind == IntKind::kPositive      ? "a positive integer"
                         : kind == IntKind::kNonNegative ? "a non-negative integer"
                                                         : "an integer";
  if (!value->is_number_integer()) fail(path(key), expected, *value);
  const bool is_too_large = value->is_number_unsigned() &&
                            value->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max());
  const int64_t least = kind == IntKind::kPositive      ? 1
                        : kind == IntKind::kNonNegative ? 0
                                                        : std::numeric_limits<int64_t>::min();
  if (is_too_large || value->get<int64_t>() < least) {
    fail(path(key), expected, *value);
  }
  field = value->get<int64_t>();
}

void ConfigReader::operator()(const char* key, uint64_t& field) {
  const json* value = find(key);
  if (!value) return;
  if (!value->is_number_integer() || (!value->is_number_unsigned() && value->get<int64_t>() < 0)) {
    fail(path(key), "a non-negative integer", *value);
  }
  field = value->get<uint64_t>();
}

void ConfigReader::operator()(const char* key, double& field) {
  const json* value = find(key);
  if (!value) return;
  if (!value->is_number()) fail(path(key), "a number", *value);
  field = value->get<double>();
}

void ConfigReader::operator()(const char* key, double& seconds, DurationField) {
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

void ConfigReader::operator()(const char* key, bool& field) {
  const json* value = find(key);
  if (!value) return;
  if (!value->is_boolean()) fail(path(key), "true or false", *value);
  field = value->get<bool>();
}

void ConfigReader::operator()(const char* key, std::string& field) {
  const json* value = find(key);
  if (!value) return;
  if (!value->is_string()) fail(path(key), "a string", *value);
  field = value->get<std::string>();
}

void ConfigReader::finish_section() const {
  if (!object_) return;
  for (const auto& item : object_->items()) {
    if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
    std::string list;
    for (std::size_t i = 0; i < known_.size(); ++i) list += (i ? ", " : "") + known_[i];
    throw ConfigError(path(check::shorten(item.key()).c_str()),
                      "unknown key (known keys: " + list + ")");
  }
}

const json* ConfigReader::find(const char* key) {
  known_.emplace_back(key);
  if (!object_) return nullptr;
  const auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

void ConfigReader::fail_choice(const std::string& path,
                               const std::vector<const char*>& names,
                               const json& got) {
  std::string expected = "one of";
  for (std::size_t i = 0; i < names.size(); ++i) {
    expected += std::string(i ? ", " : " ") + check::quote(names[i]);
  }
  fail(path, expected, got);
}

void ConfigWriter::operator()(const char* key, const double& seconds, DurationField) {
  (*section_)[key] = duration_text(seconds);
}

}  // namespace nmt::config
