// Numbers and durations as people read them, the same in log lines, error messages and pages.
// Locale-independent ("." is always the decimal mark). Torch-free; never throws; never logs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nmt {

// value with at most `significant` significant digits and no trailing zeros: "0.5", "1234",
// "3.142", "1.5e+07", "2.5e-07"; "inf", "-inf" or "nan" when it is not finite.
std::string format_number(double value, int significant = 6);

// A clock reading for progress lines: "4:05", "1:02:03".
std::string format_clock(double seconds);

// A duration in words for reports: "42.5 s", "4 min 5 s", "1 h 2 min"; "n/a" when not finite.
std::string format_duration(double seconds);

// A time budget as written in configurations and flags: hours, minutes and seconds in that order,
// each at most once, whole or decimal: "90s", "40m", "2h", "1h30m", "1.5h". "0" and "" are no time
// (0). nullopt for anything else, including a number without a unit.
std::optional<double> parse_duration(std::string_view text);

// The form parse_duration reads back, to the millisecond: "1h30m", "1m30s", "2.5s"; "0" for no
// time (or less than half a millisecond).
std::string duration_text(double seconds);

// Bytes for messages: "320.0 MiB", "1.5 GiB".
std::string format_bytes(long long bytes);

}  // namespace nmt
