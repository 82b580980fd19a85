// Small validation helpers shared by the options structs' validate() methods and the JSON reader,
// so that a value is described the same way wherever it is rejected. Each throws ConfigError
// "<name>: expected <what>, got <value>". Torch-free; never logs.
#pragma once

#include <cstddef>
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

// The longest text a message quotes whole; longer values are cut (see shorten).
inline constexpr std::size_t kMaxQuotedBytes = 80;

// text for a message: whole up to kMaxQuotedBytes, else its first bytes (cut at a UTF-8 character
// boundary), "..." and its length: "xxxx... (52428800 bytes)". A 50 MB value never becomes a 50 MB
// line.
std::string shorten(const std::string& text);

// A string value for a message, in double quotes, shortened like shorten():
// "\"xxxx...\" (52428800 bytes)".
std::string quote(const std::string& value);

// A file name in the configuration: at most 4096 bytes (PATH_MAX) and no NUL byte.
void file_name(const std::string& name, const std::string& value);

// Where models run: "auto", "cpu", "cuda" or "cuda:N" (whether it exists is checked when a command
// opens it).
void device_name(const std::string& name, const std::string& value);

}  // namespace nmt::check
