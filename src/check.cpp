#include "nmt/check.h"

#include <cmath>
#include <cstdio>

#include "nmt/error.h"
#include "nmt/format.h"

namespace nmt::check {
namespace {

[[noreturn]] void fail(const std::string& name,
                       const std::string& expected,
                       const std::string& got) {
  throw ConfigError(name, "expected " + expected + ", got " + got);
}

}  // namespace

namespace {

// Where text may be cut for a message: at most kMaxQuotedBytes, never inside a UTF-8 sequence.
std::size_t cut_point(const std::string& text) {
  std::size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

}  // namespace

std::string shorten(const std::string& text) {
  if (text.size() <= kMaxQuotedBytes) return text;
  return text.substr(0, cut_point(text)) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string quote(const std::string& value) {
  if (value.size() <= kMaxQuotedBytes) return "\"" + value + "\"";
  return "\"" + value.substr(0, cut_point(value)) + "...\" (" + std::to_string(value.size()) +
         " bytes)";
}

void file_name(const std::string& name, const std::string& value) {
  constexpr std::size_t kMaxPathBytes = 4096;
  if (value.size() > kMaxPathBytes || value.find('\0') != std::string::npos) {
    fail(name, "a file name (at most 4096 bytes, no NUL)", quote(value));
  }
}

void device_name(const std::string& name, const std::string& value) {
  const bool is_cuda_index = value.rfind("cuda:", 0) == 0 && value.size() > 5 &&
                             value.find_first_not_of("0123456789", 5) == std::string::npos;
  if (value != "auto" && value != "cpu" && value != "cuda" && !is_cuda_index) {
    fail(name, "\"auto\", \"cpu\", \"cuda\" or \"cuda:N\"", quote(value));
  }
}

void positive(const std::string& name, int64_t value) {
  if (value < 1) fail(name, "a positive integer", std::to_string(value));
}

void non_negative(const std::string& name, int64_t value) {
  if (value < 0) fail(name, "a non-negative integer", std::to_string(value));
}

void positive(const std::string& name, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    fail(name, "a positive number", format_number(value));
}

void non_negative(const std::string& name, double value) {
  if (!(value >= 0.0) || !std::isfinite(value))
    fail(name, "a non-negative number", format_number(value));
}

void fraction(const std::string& name, double value) {
  if (!(value >= 0.0 && value < 1.0)) fail(name, "a number in [0, 1)", format_number(value));
}

void in_range(const std::string& name, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    fail(name, "a number in [" + format_number(lo) + ", " + format_number(hi) + "]",
         format_number(value));
  }
}

}  // namespace nmt::check
