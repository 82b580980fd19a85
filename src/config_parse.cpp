// Reading a configuration document: nlohmann's parser, followed through its callback so that a
// duplicated key or a too deep value is refused with its line while it is read.
#include <algorithm>
#include <iterator>
#include <map>

#include "nmt/check.h"
#include "nmt/config_fields.h"
#include "nmt/error.h"

namespace nmt::config {
namespace {

// Deeper than any configuration needs (a corpus entry sits at level 4), shallow enough that
// nothing that walks a value recursively can exhaust the stack.
constexpr int kMaxConfigDepth = 32;

// An iterator over the text being parsed that records how far nlohmann's parser has read, so that
// a parse callback can name the line of what it just saw.
class ReadPosition {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ReadPosition(const char* at, const char** furthest) : at_(at), furthest_(furthest) {}
  reference operator*() const { return *at_; }
  ReadPosition& operator++() {
    *furthest_ = ++at_;
    return *this;
  }
  ReadPosition operator++(int) {
    ReadPosition before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ReadPosition& other) const { return at_ == other.at_; }
  bool operator!=(const ReadPosition& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** furthest_;
};

// Follows nlohmann's parse callback through a document: the dotted path of the value being
// parsed (so that an error inside a value, a number out of range, can name its key), the line
// each key of each open object was read on, and the depth. A key given twice in one object, or a
// value nested deeper than kMaxConfigDepth, throws ConfigError "where:line: key.path: reason"
// while the parser reads it, so no such document is ever built.
class ConfigParseTracker {
 public:
  // text: the whole document, which must outlive the tracker; where: the file (or flag) it came
  // from.
  ConfigParseTracker(const std::string& text, std::string where)
      : text_(text), read_up_to_(text.data()), where_(std::move(where)) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxConfigDepth) {
          fail("nested deeper than " + std::to_string(kMaxConfigDepth) + " levels");
        }
        levels_.emplace_back();
        levels_.back().is_object = event == json::parse_event_t::object_start;
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!levels_.empty()) levels_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!levels_.empty()) add_key(parsed.get<std::string>());
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

  // The document's first and past-the-end characters, as iterators that move the read position.
  ReadPosition begin() { return {text_.data(), &read_up_to_}; }
  ReadPosition end() { return {text_.data() + text_.size(), &read_up_to_}; }

  // "a.b.c" of the value being parsed; long keys shortened.
  std::string path() const {
    std::string dotted;
    for (const Level& level : levels_) {
      if (!level.is_object || level.key.empty()) continue;
      dotted += (dotted.empty() ? "" : ".") + check::shorten(level.key);
    }
    return dotted;
  }

 private:
  struct Level {
    bool is_object = false;
    std::string key;                           // the key being read (objects)
    std::map<std::string, std::size_t> lines;  // line of each key read so far
  };

  // 1-based line of the parser's position.
  std::size_t line() const {
    return 1 + static_cast<std::size_t>(std::count(text_.data(), read_up_to_, '\n'));
  }

  void add_key(const std::string& key) {
    Level& level = levels_.back();
    level.key = key;
    const auto [first, is_new] = level.lines.emplace(key, line());
    if (!is_new) {
      fail("duplicate key (also set at line " + std::to_string(first->second) +
           "); name each key once");
    }
  }

  [[noreturn]] void fail(const std::string& reason) const {
    const std::string key = path();
    throw ConfigError(key, reason).from(where_ + ":" + std::to_string(line()));
  }

  const std::string& text_;
  const char* read_up_to_;
  std::string where_;
  std::vector<Level> levels_;
};

// text parsed as JSON under the tracker's rules; where names it in errors ("c.json: not valid
// JSON (...)").
}  // namespace

json parse_document(const std::string& text, const std::string& where) {
  ConfigParseTracker tracker(text, where);
  try {
    return json::parse(tracker.begin(), tracker.end(), std::ref(tracker));
  } catch (const json::parse_error& error) {
    throw ConfigError(where + ": not valid JSON (" + check::shorten(error.what()) + ")");
  } catch (const json::out_of_range& error) {
    // nlohmann: "[json.exception.out_of_range.406] number overflow parsing '1e999'"
    const std::string message = error.what();
    const std::size_t detail = message.find("] ");
    throw ConfigError(
        where + ": " + tracker.path() + ": " +
        check::shorten(detail == std::string::npos ? message : message.substr(detail + 2)));
  }
}

}  // namespace nmt::config
