#include "nmt/eval/tokenizer_13a.h"

#include "eval/python_text.h"

// The substitutions below reproduce Python's re.sub on sacreBLEU's patterns: matches are found left
// to right and never overlap, each pass runs over the previous pass's output. They work on bytes:
// the patterns name ASCII characters only, and a UTF-8 lead or continuation byte matches [^0-9] and
// nothing else, so the byte-level matches are exactly the code-point-level ones.
namespace nmt::eval {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// str.replace(from, to): every non-overlapping occurrence, left to right.
std::string replace_all(const std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  std::size_t found = text.find(from);
  while (found != std::string::npos) {
    out.append(text, start, found - start);
    out.append(to);
    start = found + from.size();
    found = text.find(from, start);
  }
  out.append(text, start, std::string::npos);
  return out;
}

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols and space, without ' , - . and digits.
bool is_separated_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// re.sub(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])', r' \1 ', text)
std::string separate_symbols(const std::string& text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (const char c : text) {
    if (is_separated_symbol(c)) {
      out.push_back(' ');
      out.push_back(c);
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// re.sub over a two-character pattern first(c0) second(c1) with replacement
// before + c0 + middle + c1 + after.
template <class First, class Second>
std::string substitute_pairs(const std::string& text,
                             First first,
                             Second second,
                             std::string_view before,
                             std::string_view middle,
                             std::string_view after) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  std::size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      out.append(before);
      out.push_back(text[i]);
      out.append(middle);
      out.push_back(text[i + 1]);
      out.append(after);
      i += 2;
    } else {
      out.push_back(text[i]);
      ++i;
    }
  }
  return out;
}

std::string join_words(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const std::string_view word : split_python(text)) {
    if (!out.empty()) out.push_back(' ');
    out.append(word);
  }
  return out;
}

}  // namespace

std::string tokenize_13a(std::string_view text) {
  // Language-independent part (Tokenizer13a.__call__).
  std::string line = replace_all(std::string(text), "<skipped>", "");
  line = replace_all(line, "-\n", "");
  line = replace_all(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    line = replace_all(line, "&quot;", "\"");
    line = replace_all(line, "&amp;", "&");
    line = replace_all(line, "&lt;", "<");
    line = replace_all(line, "&gt;", ">");
  }
  line = " " + line + " ";

  // Language-dependent part (TokenizerRegexp), assuming Western languages.
  const auto not_digit = [](char c) { return !is_digit(c); };
  line = separate_symbols(line);
  // Period and comma, unless preceded by a digit: r'([^0-9])([\.,])' -> r'\1 \2 '.
  line = substitute_pairs(line, not_digit, is_period_or_comma, "", " ", " ");
  // Period and comma, unless followed by a digit: r'([\.,])([^0-9])' -> r' \1 \2'.
  line = substitute_pairs(line, is_period_or_comma, not_digit, " ", " ", "");
  // Dash after a digit: r'([0-9])(-)' -> r'\1 \2 '.
  line = substitute_pairs(
      line, is_digit, [](char c) { return c == '-'; }, "", " ", " ");
  return join_words(line);
}

}  // namespace nmt::eval
