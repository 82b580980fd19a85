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

// A string value for a message, in double quotes.
std::string quote(const std::string& value);

}  // namespace nmt::check
