// Small validation helpers shared by the options structs' validate() methods and the JSON reader,
// so that a value is described the same way wherever it is rejected. Each throws ConfigError
// "<name>: expected <what>, got <value>". Torch-free; never logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt::check {

// value >= 1
void positive(const std::string& name, int64_t value);
// value >= 0
void non_negative(const std::string& name, int64_t value);
// value > 0
void positive(const std::string& name, double value);
// value >= 0
void non_negative(const std::string& name, double value);
// 0 <= value < 1
void fraction(const std::string& name, double value);
// lo <= value <= hi
void in_range(const std::string& name, double value, double lo, double hi);
// value is one of choices
void one_of(const std::string& name, const std::string& value, const std::vector<std::string>& choices);

// Formats a value for a message: strings quoted, numbers without trailing zeros.
std::string quote(const std::string& value);
std::string format_number(double value);

}  // namespace nmt::check
