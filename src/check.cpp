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
  throw ConfigError(name + ": expected " + expected + ", got " + got);
}

}  // namespace

std::string quote(const std::string& value) { return "\"" + value + "\""; }

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
