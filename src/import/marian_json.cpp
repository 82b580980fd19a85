#include "marian_json.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "safetensors_format.h"

namespace nmt::import::detail {
namespace {

using json = nlohmann::json;

// Deeper than any Marian file needs (bad_words_ids sits at level 3), shallow enough that a hostile
// file is refused while parsing.
constexpr int kMaxDepth = 8;

// Refuses, while nlohmann parses, nesting deeper than kMaxDepth and a key given twice in one
// object (which nlohmann, like Python's json, would silently collapse to its last value).
class ParseTracker {
 public:
  explicit ParseTracker(const std::string& source) : source_(source) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxDepth) {
          fail(source_, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        keys_.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!keys_.empty()) keys_.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!keys_.empty() && !keys_.back().insert(key).second) {
          fail(source_, "the key " + quote(key) + " appears twice");
        }
        break;
      }
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  const std::string& source_;
  std::vector<std::unordered_set<std::string>> keys_;  // per open object or array
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag and the token it stopped
// in ("; last read: '...'"), which may be huge or hold invalid UTF-8.
std::string describe_parse_error(const json::parse_error& error) {
  std::string message = error.what();
  const std::size_t tag_end = message.find("] ");
  if (tag_end != std::string::npos) message.erase(0, tag_end + 2);
  return message.substr(0, message.find("; last read: '"));
}

std::string too_large(uint64_t bytes, uint64_t max_bytes) {
  return "too large: " + std::to_string(bytes) + " bytes (at most " + std::to_string(max_bytes) +
         ")";
}

// The whole of path, refused once it holds more than max_bytes (it may grow after stat()).
std::string read_bounded(const std::string& path, uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::string("cannot read: ") + std::strerror(errno));
  std::string text;
  std::vector<char> buffer(std::size_t{1} << 16);
  for (;;) {
    const ssize_t count = ::read(fd, buffer.data(), buffer.size());
    if (count < 0 && errno == EINTR) continue;
    const int error = errno;
    if (count <= 0 || text.size() + static_cast<std::size_t>(count) > max_bytes) {
      ::close(fd);
      if (count < 0) fail(path, std::string("cannot read: ") + std::strerror(error));
      if (count == 0) return text;
      fail(path, too_large(text.size() + static_cast<std::size_t>(count), max_bytes));
    }
    text.append(buffer.data(), static_cast<std::size_t>(count));
  }
}

}  // namespace

std::string describe(const json& value) {
  if (value.is_string()) return quote(value.get_ref<const std::string&>());
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  return value.dump();
}

json parse_json(const std::string& text, const std::string& source) {
  ParseTracker tracker(source);
  const json::parser_callback_t callback = [&tracker](int depth, json::parse_event_t event,
                                                      json& parsed) {
    return tracker(depth, event, parsed);
  };
  try {
    return json::parse(text, callback);
  } catch (const json::parse_error& error) {
    fail(source, "not valid JSON: " + describe_parse_error(error));
  } catch (const json::out_of_range&) {  // "number overflow parsing '<the whole number>'"
    fail(source, "not valid JSON: it holds a number too large for a double");
  }
}

json parse_object(const std::string& text, const std::string& source) {
  json document = parse_json(text, source);
  if (!document.is_object()) fail(source, "expected a JSON object, got " + describe(document));
  return document;
}

std::optional<struct stat> stat_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return info;
  if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
  fail(path, std::string("cannot read: ") + std::strerror(errno));
}

std::optional<std::string> read_optional(const std::string& path, uint64_t max_bytes) {
  const std::optional<struct stat> info = stat_of(path);
  if (!info) return std::nullopt;
  if (!S_ISREG(info->st_mode)) fail(path, "not a regular file");
  const auto bytes = static_cast<uint64_t>(info->st_size);
  if (bytes > max_bytes) fail(path, too_large(bytes, max_bytes));
  return read_bounded(path, max_bytes);
}

std::string read_required(const std::string& path, uint64_t max_bytes, const std::string& why) {
  std::optional<std::string> text = read_optional(path, max_bytes);
  if (!text) fail(path, "missing; " + why);
  return std::move(*text);
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

bool is_regular_file(const std::string& path) {
  const std::optional<struct stat> info = stat_of(path);
  return info && S_ISREG(info->st_mode);
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

const json* Fields::find(const char* key) const {
  const auto found = object_.find(key);
  return found == object_.end() ? nullptr : &*found;
}

const json* Fields::present(const char* key) const {
  const json* value = find(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

void Fields::fail_key(const std::string& key, const std::string& problem) const {
  fail(source_, key + ": " + problem);
}

void Fields::expected(const std::string& key, const std::string& what, const json& got) const {
  fail_key(key, "expected " + what + ", got " + describe(got));
}

int64_t Fields::integer(const char* key, int64_t min, int64_t max) const {
  const char* kind = min >= 1 ? "a positive integer" : "a non-negative integer";
  const json* value = find(key);
  if (value == nullptr) fail_key(key, std::string("missing; expected ") + kind);
  return to_integer(key, *value, kind, min, max);
}

int64_t Fields::integer_or(const char* key, int64_t fallback, int64_t min, int64_t max) const {
  return present(key) == nullptr ? fallback : integer(key, min, max);
}

bool Fields::boolean_or(const char* key, bool fallback) const {
  const json* value = present(key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) expected(key, "true or false", *value);
  return value->get<bool>();
}

double Fields::number_or(const char* key, double fallback) const {
  const json* value = present(key);
  if (value == nullptr) return fallback;
  if (!value->is_number()) expected(key, "a number", *value);
  return value->get<double>();
}

double Fields::fraction_or(const char* key, double fallback) const {
  const double number = number_or(key, fallback);
  if (!(number >= 0.0 && number < 1.0)) expected(key, "a number in [0, 1)", *find(key));
  return number;
}

std::string Fields::string_or(const char* key, const std::string& fallback) const {
  const json* value = present(key);
  if (value == nullptr) return fallback;
  if (!value->is_string()) expected(key, "a string", *value);
  return value->get<std::string>();
}

int64_t Fields::id(const std::string& key,
                   const json& value,
                   int64_t limit,
                   const std::string& limit_key) const {
  const std::string what = "an id below " + std::to_string(limit) + " (" + limit_key + ")";
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() ? value.get<uint64_t>() >= static_cast<uint64_t>(limit)
                                  : (value.get<int64_t>() < 0 || value.get<int64_t>() >= limit))) {
    expected(key, what, value);
  }
  return value.get<int64_t>();
}

int64_t Fields::to_integer(
    const char* key, const json& value, const char* kind, int64_t min, int64_t max) const {
  if (!value.is_number_integer()) expected(key, kind, value);
  const bool is_above = value.is_number_unsigned()
                            ? value.get<uint64_t>() > static_cast<uint64_t>(max)
                            : value.get<int64_t>() > max;
  if (is_above) expected(key, "at most " + std::to_string(max), value);
  if (value.get<int64_t>() < min) expected(key, kind, value);
  return value.get<int64_t>();
}

}  // namespace nmt::import::detail
