#include "nmt/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace nmt {

std::string format_number(double value, int significant) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0.0) return "0";
  significant = std::max(1, significant);
  const double magnitude = std::abs(value);
  char buffer[64];
  std::to_chars_result result{};
  if (magnitude >= 1e7 || magnitude < 1e-4) {
    result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general,
                           significant);
    return std::string(buffer, result.ptr);
  }
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  const int decimals = std::max(0, significant - 1 - exponent);
  result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  std::string text(buffer, result.ptr);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::string format_clock(double seconds) {
  const auto total = static_cast<long long>(seconds < 0 ? 0 : seconds + 0.5);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld", total / 60 % 60, total % 60);
  }
  return buffer;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  const auto total = static_cast<long long>(std::llround(seconds));
  if (total < 60) return format_number(seconds, 3) + " s";
  if (total < 3600) {
    return std::to_string(total / 60) + " min " + std::to_string(total % 60) + " s";
  }
  return std::to_string(total / 3600) + " h " + std::to_string(total % 3600 / 60) + " min";
}

std::optional<double> parse_duration(std::string_view text) {
  if (text.empty() || text == "0") return 0.0;
  constexpr std::string_view kUnits = "hms";
  constexpr double kSeconds[] = {3600.0, 60.0, 1.0};
  double total = 0.0;
  std::size_t next_unit = 0;  // units come in the order h, m, s, each at most once
  const char* cursor = text.data();
  const char* const end = text.data() + text.size();
  while (cursor != end) {
    double value = 0.0;
    const auto [after, error] = std::from_chars(cursor, end, value, std::chars_format::fixed);
    if (error != std::errc() || after == end || value < 0.0 || !std::isfinite(value)) {
      return std::nullopt;
    }
    const std::size_t unit = kUnits.find(*after, next_unit);
    if (unit == std::string_view::npos) return std::nullopt;
    total += value * kSeconds[unit];
    next_unit = unit + 1;
    cursor = after + 1;
  }
  return total;
}

std::string duration_text(double seconds) {
  if (!(seconds > 0.0)) return "0";
  if (seconds > 1e12) return format_number(seconds) + "s";  // beyond any budget; no overflow
  // Whole milliseconds, so that the text reads back to a value that writes the same text.
  const long long milliseconds = std::llround(seconds * 1000.0);
  const long long total = milliseconds / 1000;
  std::string text;
  if (total >= 3600) text += std::to_string(total / 3600) + "h";
  if (total % 3600 >= 60) text += std::to_string(total % 3600 / 60) + "m";
  const long long rest = total % 60 * 1000 + milliseconds % 1000;
  if (rest > 0) text += format_number(static_cast<double>(rest) / 1000.0) + "s";
  return text.empty() ? "0" : text;
}

std::string format_bytes(long long bytes) {
  const double value = static_cast<double>(bytes);
  char text[32];
  if (value >= 1024.0 * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f GiB", value / (1024.0 * 1024 * 1024));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", value / (1024.0 * 1024));
  }
  return text;
}

}  // namespace nmt
