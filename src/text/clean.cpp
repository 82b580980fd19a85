#include "nmt/text/clean.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace nmt::text {
namespace {

constexpr utf8proc_int32_t kReplacementChar = 0xFFFD;
// U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE is the one unconditional special case of Unicode's
// full lowercase mapping (SpecialCasing.txt) that differs from the simple mapping: Python's
// str.lower() turns it into "i" + U+0307 COMBINING DOT ABOVE.
constexpr utf8proc_int32_t kCapitalIWithDot = 0x0130;

// Calls visit(code_point) for each code point; invalid bytes come through as U+FFFD.
template <class Visit>
void for_each_code_point(std::string_view text, Visit&& visit) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t pos = 0;
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  while (pos < size) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0) {
      visit(kReplacementChar);
      ++pos;
    } else {
      visit(cp);
      pos += n;
    }
  }
}

void append_code_point(std::string& out, utf8proc_int32_t cp) {
  utf8proc_uint8_t buffer[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(cp, buffer);
  out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(n));
}

bool is_notebook_punctuation(utf8proc_int32_t cp) {
  return cp == U'¿' || cp == U'?' || cp == U'¡' || cp == U'!' || cp == U',';
}

// The character class [a-zA-Z0-9áéíóúüñ¿?¡!,] of the notebook's second regex.
bool is_notebook_kept(utf8proc_int32_t cp) {
  if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9')) return true;
  switch (cp) {
    case U'á':
    case U'é':
    case U'í':
    case U'ó':
    case U'ú':
    case U'ü':
    case U'ñ':
      return true;
    default:
      return is_notebook_punctuation(cp);
  }
}

// Appends a space unless the output is empty or already ends with one (squeeze + left trim).
void append_separator(std::string& out) {
  if (!out.empty() && out.back() != ' ') out.push_back(' ');
}

void trim_trailing_space(std::string& out) {
  while (!out.empty() && out.back() == ' ') out.pop_back();
}

void append_notebook_char(std::string& out, utf8proc_int32_t lowered) {
  if (is_notebook_punctuation(lowered)) {
    append_separator(out);
    append_code_point(out, lowered);
    out.push_back(' ');
  } else if (is_notebook_kept(lowered)) {
    append_code_point(out, lowered);
  } else {
    append_separator(out);
  }
}

bool is_unicode_space(utf8proc_int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x1C ||
      cp == 0x1D || cp == 0x1E || cp == 0x1F || cp == 0x85) {
    return true;
  }
  const utf8proc_category_t category = utf8proc_category(cp);
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

}  // namespace

std::string clean_notebook(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for_each_code_point(text, [&out](utf8proc_int32_t cp) {
    if (cp == kCapitalIWithDot) {
      append_notebook_char(out, 'i');
      append_notebook_char(out, 0x0307);
    } else {
      append_notebook_char(out, utf8proc_tolower(cp));
    }
  });
  trim_trailing_space(out);
  return out;
}

std::string normalize(std::string_view text) {
  std::string valid;
  valid.reserve(text.size());
  for_each_code_point(text, [&valid](utf8proc_int32_t cp) { append_code_point(valid, cp); });

  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
      static_cast<utf8proc_ssize_t>(valid.size()), &mapped,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(mapped, &std::free);
  const std::string_view nfkc = length >= 0
                                    ? std::string_view(reinterpret_cast<const char*>(mapped),
                                                       static_cast<std::size_t>(length))
                                    : std::string_view(valid);

  std::string out;
  out.reserve(nfkc.size());
  for_each_code_point(nfkc, [&out](utf8proc_int32_t cp) {
    if (is_unicode_space(cp)) {
      append_separator(out);
    } else {
      append_code_point(out, cp);
    }
  });
  trim_trailing_space(out);
  return out;
}

std::string clean(std::string_view text, CleanMode mode) {
  return mode == CleanMode::kNotebook ? clean_notebook(text) : normalize(text);
}

bool is_valid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t pos = 0;
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  while (pos < size) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0 || cp == 0) return false;
    pos += n;
  }
  return true;
}

std::size_t count_words(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool is_space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (!is_space && !in_word) ++words;
    in_word = !is_space;
  }
  return words;
}

std::string join_punctuation(std::string_view tokenized) {
  // Closing marks attach to the word before them, opening marks to the word after them.
  std::string out;
  out.reserve(tokenized.size());
  bool glue_next = false;
  std::size_t start = 0;
  while (start < tokenized.size()) {
    std::size_t end = tokenized.find(' ', start);
    if (end == std::string_view::npos) end = tokenized.size();
    const std::string_view token = tokenized.substr(start, end - start);
    start = end + 1;
    if (token.empty()) continue;
    const bool is_closing = token == "?" || token == "!" || token == "," || token == "." ||
                            token == ";" || token == ":";
    const bool is_opening = token == "¿" || token == "¡";
    if (!out.empty() && !is_closing && !glue_next) out.push_back(' ');
    out.append(token);
    glue_next = is_opening;
  }
  return out;
}

}  // namespace nmt::text
