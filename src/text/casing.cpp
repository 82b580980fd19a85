#include "nmt/text/casing.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <vector>

#include "nmt/text/placeholders.h"

namespace nmt::text {
namespace {

bool is_valid_utf8(std::string_view text) {
  const auto size = static_cast<int32_t>(text.size());
  for (int32_t at = 0; at < size;) {
    UChar32 code_point = 0;
    U8_NEXT(text.data(), at, size, code_point);
    if (code_point < 0) return false;
  }
  return true;
}

template <class Mapping>
std::string map_case(std::string_view text, Mapping mapping) {
  if (!is_valid_utf8(text)) return std::string(text);
  icu::UnicodeString unicode =
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  mapping(unicode);
  std::string out;
  unicode.toUTF8String(out);
  return out;
}

}  // namespace

std::string to_upper(std::string_view text, const std::string& language) {
  return map_case(text, [&language](icu::UnicodeString& unicode) {
    unicode.toUpper(icu::Locale(language.c_str()));
  });
}

std::string to_lower(std::string_view text, const std::string& language) {
  return map_case(text, [&language](icu::UnicodeString& unicode) {
    unicode.toLower(icu::Locale(language.c_str()));
  });
}

namespace {

// The cased letters of a text, counted once for both is_all_caps and is_all_lower.
struct LetterCases {
  int capitals = 0;  // upper case and title case
  int lower = 0;
  bool is_valid = true;  // well-formed UTF-8
};

LetterCases count_letter_cases(std::string_view text) {
  LetterCases cases;
  const auto size = static_cast<int32_t>(text.size());
  for (int32_t at = 0; at < size;) {
    UChar32 code_point = 0;
    U8_NEXT(text.data(), at, size, code_point);
    if (code_point < 0) return {0, 0, false};
    if (u_isUUppercase(code_point) || u_istitle(code_point)) ++cases.capitals;
    if (u_isULowercase(code_point)) ++cases.lower;
  }
  return cases;
}

// text with its first cased letter in title case ("¿dónde?" -> "¿Dónde?"), unless that letter
// is in a URL or an e-mail address, which keep their case ("https://example.org is down.").
std::string capitalize_first_letter(const std::string& text) {
  const auto size = static_cast<int32_t>(text.size());
  const std::vector<VerbatimSpan> spans = find_verbatim_spans(text);
  for (int32_t at = 0; at < size;) {
    const int32_t start = at;
    UChar32 code_point = 0;
    U8_NEXT(text.data(), at, size, code_point);
    if (code_point < 0 || !u_hasBinaryProperty(code_point, UCHAR_CASED)) continue;
    const auto in_address = [start](const VerbatimSpan& span) {
      return (span.kind == SpanKind::kUrl || span.kind == SpanKind::kEmail) &&
             static_cast<std::size_t>(start) >= span.begin &&
             static_cast<std::size_t>(start) < span.begin + span.size;
    };
    if (std::any_of(spans.begin(), spans.end(), in_address)) return text;
    std::string title;
    icu::UnicodeString(u_totitle(code_point)).toUTF8String(title);
    return text.substr(0, static_cast<std::size_t>(start)) + title +
           text.substr(static_cast<std::size_t>(at));
  }
  return text;
}

bool is_word_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (static_cast<unsigned char>(c) >= 0x80);
}

// English writes the pronoun in capitals whatever the case around it ("i'm" -> "I'm").
std::string capitalize_english_i(std::string text) {
  for (std::size_t at = text.find('i'); at != std::string::npos; at = text.find('i', at + 1)) {
    const bool starts_word = at == 0 || !is_word_character(text[at - 1]);
    const bool ends_word = at + 1 == text.size() || !is_word_character(text[at + 1]);
    if (starts_word && ends_word) text[at] = 'I';
  }
  return text;
}

bool is_all_lower(std::string_view text) {
  const LetterCases cases = count_letter_cases(text);
  return cases.is_valid && cases.capitals == 0 && cases.lower > 0;
}

std::string sentence_case(const std::string& lowered, const std::string& language) {
  const std::string capitalized = capitalize_first_letter(lowered);
  return language == "en" || language.rfind("en-", 0) == 0 || language.rfind("en_", 0) == 0
             ? capitalize_english_i(capitalized)
             : capitalized;
}

}  // namespace

CaseAdapted adapt_case(std::string_view sentence, const std::string& source_language) {
  if (is_all_caps(sentence)) {
    return {sentence_case(to_lower(sentence, source_language), source_language),
            SourceCase::kAllCaps};
  }
  if (is_all_lower(sentence)) {
    return {sentence_case(std::string(sentence), source_language), SourceCase::kAllLower};
  }
  return {std::string(sentence), SourceCase::kAsWritten};
}

std::string restore_case(std::string translation,
                         SourceCase source_case,
                         const std::string& target_language) {
  if (source_case != SourceCase::kAllCaps) return translation;
  return to_upper(translation, target_language);
}

bool is_all_caps(std::string_view text, int min_letters) {
  const LetterCases cases = count_letter_cases(text);
  return cases.is_valid && cases.lower == 0 && cases.capitals >= min_letters;
}

}  // namespace nmt::text
