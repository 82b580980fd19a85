#include "nmt/check.h"

#include <cmath>
#include <cstdio>

#include "nmt/error.h"

namespace nmt::check {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& expected, const std::string& got) {
  throw ConfigError(name + ": expected " + expected + ", got " + got);
}

}  // namespace

std::string quote(const std::string& value) { return "\"" + value + "\""; }

std::string format_number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

void positive(const std::string& name, int64_t value) {
  if (value < 1) fail(name, "a positive integer", std::to_string(value));
}

void non_negative(const std::string& name, int64_t value) {
  if (value < 0) fail(name, "a non-negative integer", std::to_string(value));
}

void positive(const std::string& name, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) fail(name, "a positive number", format_number(value));
}

void non_negative(const std::string& name, double value) {
  if (!(value >= 0.0) || !std::isfinite(value)) fail(name, "a non-negative number", format_number(value));
}

void fraction(const std::string& name, double value) {
  if (!(value >= 0.0 && value < 1.0)) fail(name, "a number in [0, 1)", format_number(value));
}

void in_range(const std::string& name, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    fail(name, "a number in [" + format_number(lo) + ", " + format_number(hi) + "]", format_number(value));
  }
}

void one_of(const std::string& name, const std::string& value, const std::vector<std::string>& choices) {
  for (const std::string& choice : choices) {
    if (value == choice) return;
  }
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i) list += (i ? ", " : "") + quote(choices[i]);
  fail(name, "one of " + list, quote(value));
}

}  // namespace nmt::check
