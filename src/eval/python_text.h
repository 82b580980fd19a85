// The few Python `str` behaviours sacreBLEU's metrics rest on, over UTF-8 text: which characters
// are whitespace for str.split()/str.strip(), splitting, right-stripping, and code-point stepping.
// An invalid UTF-8 byte counts as one non-space character of its own (Python would refuse to decode
// it). Private to the eval module; never throws; never logs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::eval {

// True for the code points Python's str.isspace() accepts (str.split() separators): ASCII
// \t \n \v \f \r, U+001C..U+001F, space, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000.
bool is_python_space(char32_t code_point);

// A code point decoded from UTF-8: its value and its length in bytes (1 for an invalid byte,
// whose value is then U+FFFD).
struct DecodedChar {
  char32_t value = 0;
  std::size_t size = 1;
};

// Decodes the code point that starts at text[pos]; pos < text.size().
DecodedChar decode_at(std::string_view text, std::size_t pos);

// str.split(): the runs of non-whitespace characters, as views into text.
std::vector<std::string_view> split_python(std::string_view text);

// str.rstrip(): text without its trailing whitespace.
std::string_view rstrip_python(std::string_view text);

// "".join(text.split()): text with every whitespace character removed.
std::string remove_whitespace(std::string_view text);

}  // namespace nmt::eval
