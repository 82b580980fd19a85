#include "nmt/text/placeholders.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <numeric>

#include "nmt/text/casing.h"
#include "nmt/text/vocab.h"

namespace nmt::text {
namespace {

constexpr std::string_view kOpen = "⦅";
constexpr std::string_view kClose = "⦆";

// Punctuation that wraps a token without being part of what it names.
constexpr std::array<std::string_view, 11> kLeading = {"\"", "'", "(", "[", "{", "<",
                                                        "¿", "¡", "«", "“", "‘"};
constexpr std::array<std::string_view, 16> kTrailing = {".", ",", ";", ":", "!", "?", "\"", "'",
                                                         ")", "]", "}", ">", "»", "”", "’", "…"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

template <std::size_t N>
bool strip_one_front(std::string_view& token, const std::array<std::string_view, N>& marks) {
  for (const std::string_view mark : marks) {
    if (token.size() > mark.size() && token.substr(0, mark.size()) == mark) {
      token.remove_prefix(mark.size());
      return true;
    }
  }
  return false;
}

template <std::size_t N>
bool strip_one_back(std::string_view& token, const std::array<std::string_view, N>& marks) {
  for (const std::string_view mark : marks) {
    if (token.size() > mark.size() && token.substr(token.size() - mark.size()) == mark) {
      token.remove_suffix(mark.size());
      return true;
    }
  }
  return false;
}

bool starts_with_lowered(std::string_view token, std::string_view prefix) {
  if (token.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), token.begin(), [](char p, char t) {
    return p == static_cast<char>(std::tolower(static_cast<unsigned char>(t)));
  });
}

bool is_url(std::string_view token) {
  return starts_with_lowered(token, "http://") || starts_with_lowered(token, "https://") ||
         starts_with_lowered(token, "ftp://") ||
         (starts_with_lowered(token, "www.") && token.size() > 4);
}

bool is_email(std::string_view token) {
  const std::size_t at = token.find('@');
  if (at == 0 || at == std::string_view::npos || token.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  const std::size_t dot = token.find('.', at + 2);
  return dot != std::string_view::npos && dot + 1 < token.size();
}

bool has_digit(std::string_view token) {
  return std::any_of(token.begin(), token.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool is_letter_or_mark(utf8proc_category_t category) {
  return (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ||
         category == UTF8PROC_CATEGORY_MN || category == UTF8PROC_CATEGORY_MC;
}

// At least two letters, the first a capital, only letters, marks and inner hyphens or
// apostrophes: "Zbigniew", "Jyväskylä", "Jean-Luc", "O'Neill".
bool is_capitalised_word(std::string_view token) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(token.data());
  const auto size = static_cast<utf8proc_ssize_t>(token.size());
  utf8proc_ssize_t pos = 0;
  int letters = 0;
  bool joiner_before = false;
  while (pos < size) {
    utf8proc_int32_t code = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(bytes + pos, size - pos, &code);
    if (length <= 0) return false;
    const bool joiner = code == '-' || code == '\'' || code == 0x2019;
    if (joiner) {
      if (letters == 0 || joiner_before) return false;
    } else {
      const utf8proc_category_t category = utf8proc_category(code);
      if (!is_letter_or_mark(category)) return false;
      if (letters == 0 && category != UTF8PROC_CATEGORY_LU && category != UTF8PROC_CATEGORY_LT) {
        return false;
      }
      ++letters;
    }
    joiner_before = joiner;
    pos += length;
  }
  return letters >= 2 && !joiner_before;
}

// The token's core and kind, or false when it is none of the kinds.
bool classify(std::string_view& token, SpanKind& kind) {
  while (strip_one_front(token, kLeading)) {
  }
  while (strip_one_back(token, kTrailing)) {
  }
  if (is_url(token)) {
    kind = SpanKind::kUrl;
  } else if (is_email(token)) {
    kind = SpanKind::kEmail;
  } else if (has_digit(token)) {
    kind = SpanKind::kNumber;
  } else {
    for (const std::string_view possessive : {std::string_view("'s"), std::string_view("’s")}) {
      if (token.size() > possessive.size() &&
          token.substr(token.size() - possessive.size()) == possessive) {
        token.remove_suffix(possessive.size());
      }
    }
    if (!is_capitalised_word(token)) return false;
    kind = SpanKind::kName;
  }
  return true;
}

// The spans of text that `keep` accepts.
std::vector<VerbatimSpan> kept_spans(
    std::string_view text,
    const std::function<bool(const VerbatimSpan&, std::string_view)>& keep) {
  std::vector<VerbatimSpan> kept;
  for (const VerbatimSpan& span : find_verbatim_spans(text)) {
    if (keep(span, text.substr(span.begin, span.size))) kept.push_back(span);
  }
  return kept;
}

// Names and numbers one space apart become one span: "Tran Thi Lan", "Jiří Dvořák", "WI 7638",
// "954 90". The model then copies one placeholder, not three in their order.
std::vector<VerbatimSpan> merge_adjacent(std::string_view text, std::vector<VerbatimSpan> spans) {
  const auto joins = [](const VerbatimSpan& span) {
    return span.kind == SpanKind::kName || span.kind == SpanKind::kNumber;
  };
  std::vector<VerbatimSpan> merged;
  for (const VerbatimSpan& span : spans) {
    if (!merged.empty() && joins(merged.back()) && joins(span) &&
        text.substr(merged.back().begin + merged.back().size,
                    span.begin - merged.back().begin - merged.back().size) == " ") {
      VerbatimSpan& last = merged.back();
      last.size = span.begin + span.size - last.begin;
      if (span.kind == SpanKind::kNumber) last.kind = SpanKind::kNumber;
      continue;
    }
    merged.push_back(span);
  }
  return merged;
}

// The code point before byte `at` (or after `end`) is not a letter, mark or digit: the bytes
// between are a whole word or words, not part of one ("Tom" is not whole in "Tomás").
bool is_whole(std::string_view text, std::size_t at, std::size_t end) {
  const auto is_word_code_point = [](utf8proc_int32_t code) {
    const utf8proc_category_t category = utf8proc_category(code);
    return is_letter_or_mark(category) || category == UTF8PROC_CATEGORY_ND;
  };
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  if (at > 0) {
    std::size_t start = at - 1;
    while (start > 0 && (bytes[start] & 0xC0) == 0x80) --start;
    utf8proc_int32_t code = 0;
    utf8proc_iterate(bytes + start, static_cast<utf8proc_ssize_t>(at - start), &code);
    if (code >= 0 && is_word_code_point(code)) return false;
  }
  if (end < text.size()) {
    utf8proc_int32_t code = 0;
    utf8proc_iterate(bytes + end, static_cast<utf8proc_ssize_t>(text.size() - end), &code);
    if (code >= 0 && is_word_code_point(code)) return false;
  }
  return true;
}

// Replaces the listed spans of text (in order, not overlapping) by their placeholders.
std::string substitute(std::string_view text,
                       const std::vector<std::pair<VerbatimSpan, int>>& replacements) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (const auto& [span, number] : replacements) {
    out.append(text.substr(copied, span.begin - copied));
    out += placeholder(number);
    copied = span.begin + span.size;
  }
  out.append(text.substr(copied));
  return out;
}

struct PlaceholderAt {
  std::size_t begin = 0;  // of "⦅"
  std::size_t end = 0;    // after "⦆"
  int number = 0;
};

// Every "⦅n⦆" (n of one or two digits) in text, in order.
std::vector<PlaceholderAt> find_placeholders(std::string_view text) {
  std::vector<PlaceholderAt> found;
  for (std::size_t open = text.find(kOpen); open != std::string_view::npos;
       open = text.find(kOpen, open + kOpen.size())) {
    const std::size_t digits = open + kOpen.size();
    std::size_t end = digits;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == digits || end - digits > 2 || text.substr(end, kClose.size()) != kClose) continue;
    found.push_back({open, end + kClose.size(),
                     std::stoi(std::string(text.substr(digits, end - digits)))});
  }
  return found;
}

int number_of(const std::vector<std::string>& originals, std::string_view span) {
  const auto found = std::find(originals.begin(), originals.end(), span);
  return found == originals.end() ? 0 : static_cast<int>(found - originals.begin()) + 1;
}

}  // namespace

std::string placeholder(int number) {
  return std::string(kOpen) + std::to_string(number) + std::string(kClose);
}

std::vector<std::string> placeholder_symbols() {
  std::vector<std::string> symbols;
  for (int n = 1; n <= kMaxPlaceholders; ++n) symbols.push_back(placeholder(n));
  return symbols;
}

bool keeps_placeholders(const TokenizerPair& tokenizers) {
  for (const std::string& symbol : placeholder_symbols()) {
    for (const Tokenizer* tokenizer : {tokenizers.source.get(), tokenizers.target.get()}) {
      const std::vector<int64_t> ids = tokenizer->encode(symbol);
      if (ids.empty() || ids.size() > 2 ||
          std::find(ids.begin(), ids.end(), kUnkId) != ids.end() ||
          tokenizer->decode(ids) != symbol) {
        return false;
      }
    }
  }
  return true;
}

std::vector<VerbatimSpan> find_verbatim_spans(std::string_view text) {
  std::vector<VerbatimSpan> spans;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_space(text[pos])) ++pos;
    std::size_t end = pos;
    while (end < text.size() && !is_space(text[end])) ++end;
    std::string_view token = text.substr(pos, end - pos);
    SpanKind kind = SpanKind::kNumber;
    if (!token.empty() && classify(token, kind)) {
      spans.push_back({static_cast<std::size_t>(token.data() - text.data()), token.size(), kind});
    }
    pos = end;
  }
  return spans;
}

ProtectedText protect_spans(
    std::string_view text,
    const std::function<bool(const VerbatimSpan&, std::string_view)>& keep) {
  ProtectedText result;
  if (text.find(kOpen) != std::string_view::npos) {
    result.text = std::string(text);
    result.held_placeholders = true;
    return result;
  }
  std::vector<std::pair<VerbatimSpan, int>> replacements;
  for (const VerbatimSpan& span : merge_adjacent(text, kept_spans(text, keep))) {
    const std::string_view original = text.substr(span.begin, span.size);
    int number = number_of(result.originals, original);
    if (number == 0) {
      if (result.originals.size() == kMaxPlaceholders) continue;
      result.originals.emplace_back(original);
      number = static_cast<int>(result.originals.size());
    }
    replacements.emplace_back(span, number);
  }
  result.text = substitute(text, replacements);
  return result;
}

std::string apply_placeholders(std::string_view text, const std::vector<std::string>& originals) {
  // Longest first, so that "Tran Thi Lan" is one span even where "Lan" is an original too.
  std::vector<std::size_t> by_length(originals.size());
  std::iota(by_length.begin(), by_length.end(), 0);
  std::stable_sort(by_length.begin(), by_length.end(), [&originals](std::size_t a, std::size_t b) {
    return originals[a].size() > originals[b].size();
  });
  std::vector<std::pair<VerbatimSpan, int>> replacements;
  const auto is_free = [&replacements](std::size_t begin, std::size_t end) {
    return std::none_of(replacements.begin(), replacements.end(), [&](const auto& taken) {
      return begin < taken.first.begin + taken.first.size && taken.first.begin < end;
    });
  };
  for (const std::size_t i : by_length) {
    const std::string& original = originals[i];
    if (original.empty()) continue;
    for (std::size_t at = text.find(original); at != std::string_view::npos;
         at = text.find(original, at + 1)) {
      const std::size_t end = at + original.size();
      if (is_whole(text, at, end) && is_free(at, end)) {
        replacements.push_back({VerbatimSpan{at, original.size()}, static_cast<int>(i) + 1});
      }
    }
  }
  std::sort(replacements.begin(), replacements.end(),
            [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
  return substitute(text, replacements);
}

std::string restore_spans(std::string_view translation, const ProtectedText& source) {
  if (source.held_placeholders) return std::string(translation);
  const std::vector<std::string>& originals = source.originals;
  const std::vector<PlaceholderAt> found = find_placeholders(translation);
  // A number with no original stands for the first original the translation does not write
  // (a model that wrote ⦅3⦆ for the one span of its source copied the span, not its number).
  std::vector<bool> written(originals.size(), false);
  for (const PlaceholderAt& at : found) {
    if (at.number >= 1 && at.number <= static_cast<int>(originals.size())) {
      written[static_cast<std::size_t>(at.number - 1)] = true;
    }
  }
  std::map<int, std::size_t> stand_ins;
  std::size_t next_unwritten = 0;
  const auto original_of = [&](int number) -> const std::string* {
    if (number >= 1 && number <= static_cast<int>(originals.size())) {
      return &originals[static_cast<std::size_t>(number - 1)];
    }
    if (const auto known = stand_ins.find(number); known != stand_ins.end()) {
      return &originals[known->second];
    }
    while (next_unwritten < originals.size() && written[next_unwritten]) ++next_unwritten;
    if (next_unwritten == originals.size()) return nullptr;
    written[next_unwritten] = true;
    stand_ins[number] = next_unwritten;
    return &originals[next_unwritten];
  };
  std::string out;
  out.reserve(translation.size());
  std::size_t copied = 0;
  for (const PlaceholderAt& at : found) {
    out.append(translation.substr(copied, at.begin - copied));
    copied = at.end;
    if (const std::string* original = original_of(at.number)) {
      out += *original;
    } else if (!out.empty() && out.back() == ' ') {
      out.pop_back();
    } else if (out.empty() && copied < translation.size() && translation[copied] == ' ') {
      ++copied;
    }
  }
  out.append(translation.substr(copied));
  return out;
}

namespace {

// Pieces shorter than this on average spell a word the vocabulary has not seen as one.
constexpr double kUnfamiliarCharactersPerPiece = 1.8;

// The source vocabulary has no character of word (byte pieces) or spells it in two or more
// short pieces: a spelling it has not learnt as a word.
bool is_spelled_in_pieces(const Tokenizer& source, std::string_view word) {
  const std::vector<int64_t> ids = source.encode(word);
  for (const std::string& piece : source.pieces(ids)) {
    if (piece.rfind("<0x", 0) == 0) return true;
  }
  const auto characters = static_cast<double>(
      std::count_if(word.begin(), word.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  return ids.size() >= 2 &&
         characters < kUnfamiliarCharactersPerPiece * static_cast<double>(ids.size());
}

// A capitalised word whose spelling the source vocabulary has not learnt ("Brno", "Zbigniew"): a
// name the model does not know, copied best as a placeholder. Names it has learnt ("Japan", one
// piece, "Japón" in Spanish) are left to the model, and so is a sentence's first word that it
// knows in lower case ("My", "If", "Is": "▁M" "y", but "▁my"). On 150 sentences of our own
// making, two pieces rather than three took the names kept from 35 to 36 of 42 and codes such as
// "WI 7638" from 27 to 30 of 30 (docs/real-text.md#numbers-and-names).
bool is_unfamiliar_name(const Tokenizer& source, std::string_view word, bool starts_sentence) {
  return is_spelled_in_pieces(source, word) &&
         (!starts_sentence || is_spelled_in_pieces(source, to_lower(word, "")));
}

}  // namespace

ProtectedText protect_for_model(std::string_view sentence, const Tokenizer& source) {
  // Before the first letter or digit only spaces and punctuation: "¿Is", "\"My".
  const std::size_t first = static_cast<std::size_t>(
      std::find_if(sentence.begin(), sentence.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c < 0; }) -
      sentence.begin());
  return protect_spans(sentence, [&source, first](const VerbatimSpan& span,
                                                  std::string_view original) {
    return span.kind != SpanKind::kName ||
           is_unfamiliar_name(source, original, span.begin <= first);
  });
}

}  // namespace nmt::text
