#include "eval/python_text.h"

#include <utf8proc.h>

namespace nmt::eval {
namespace {

constexpr char32_t kReplacementChar = 0xFFFD;

// Calls visit(begin, size, is_space) for each character of text, in order.
template <class Visit>
void for_each_char(std::string_view text, Visit&& visit) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const DecodedChar decoded = decode_at(text, pos);
    visit(pos, decoded.size, is_python_space(decoded.value));
    pos += decoded.size;
  }
}

}  // namespace

bool is_python_space(char32_t code_point) {
  if (code_point <= 0x20) {
    return (code_point >= 0x09 && code_point <= 0x0D) ||
           (code_point >= 0x1C && code_point <= 0x1F) || code_point == 0x20;
  }
  if (code_point < 0x85) return false;
  return code_point == 0x85 || code_point == 0xA0 || code_point == 0x1680 ||
         (code_point >= 0x2000 && code_point <= 0x200A) || code_point == 0x2028 ||
         code_point == 0x2029 || code_point == 0x202F || code_point == 0x205F ||
         code_point == 0x3000;
}

DecodedChar decode_at(std::string_view text, std::size_t pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) return {byte, 1};
  utf8proc_int32_t code_point = 0;
  const utf8proc_ssize_t size =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                       static_cast<utf8proc_ssize_t>(text.size() - pos), &code_point);
  if (size <= 0) return {kReplacementChar, 1};
  return {static_cast<char32_t>(code_point), static_cast<std::size_t>(size)};
}

std::vector<std::string_view> split_python(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t word_begin = std::string_view::npos;
  for_each_char(text, [&](std::size_t begin, std::size_t, bool is_space) {
    if (is_space && word_begin != std::string_view::npos) {
      words.push_back(text.substr(word_begin, begin - word_begin));
      word_begin = std::string_view::npos;
    } else if (!is_space && word_begin == std::string_view::npos) {
      word_begin = begin;
    }
  });
  if (word_begin != std::string_view::npos) words.push_back(text.substr(word_begin));
  return words;
}

std::string_view rstrip_python(std::string_view text) {
  std::size_t end = 0;
  for_each_char(text, [&end](std::size_t begin, std::size_t size, bool is_space) {
    if (!is_space) end = begin + size;
  });
  return text.substr(0, end);
}

std::string remove_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](std::size_t begin, std::size_t size, bool is_space) {
    if (!is_space) out.append(text.substr(begin, size));
  });
  return out;
}

}  // namespace nmt::eval
