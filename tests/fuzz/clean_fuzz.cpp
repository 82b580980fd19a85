// Fuzzes sentence cleaning (nmt/text/clean.h) on arbitrary bytes: the notebook's clean_text, NFKC
// normalisation, the UTF-8 check, word counting and punctuation joining. None of them may throw.
// Checked properties: is_valid_utf8 agrees with a plain decoder written from RFC 3629; both
// cleanings give single-space-separated text without spaces at the ends and are idempotent; the
// notebook's keeps only its character class; join_punctuation changes nothing but spaces.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "nmt/text/clean.h"

namespace {

// RFC 3629 well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF); NUL bytes
// are accepted only when allow_nul.
bool is_well_formed_utf8(std::string_view text, bool allow_nul) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead == 0 && !allow_nul) return false;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    uint32_t code_point = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code_point = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code_point = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code_point = lead & 0x07u;
    } else {
      return false;
    }
    if (text.size() - i < length) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto continuation = static_cast<unsigned char>(text[i + k]);
      if ((continuation & 0xC0u) != 0x80u) return false;
      code_point = (code_point << 6) | (continuation & 0x3Fu);
    }
    const bool is_overlong =
        (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
    const bool is_surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
    if (is_overlong || is_surrogate || code_point > 0x10FFFF) return false;
    i += length;
  }
  return true;
}

bool is_single_spaced(std::string_view text) {
  return text.empty() ||
         (text.front() != ' ' && text.back() != ' ' && text.find("  ") == std::string_view::npos);
}

// The notebook's output alphabet: [a-z0-9áéíóúüñ¿?¡!,] and the space between words.
bool has_only_notebook_characters(std::string_view text) {
  const std::string_view kAccented[] = {"á", "é", "í", "ó", "ú", "ü", "ñ", "¿", "¡"};
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '?' || c == '!' || c == ',' ||
        c == ' ') {
      ++i;
      continue;
    }
    bool is_accented = false;
    for (const std::string_view accented : kAccented) {
      if (text.substr(i, accented.size()) == accented) {
        i += accented.size();
        is_accented = true;
        break;
      }
    }
    if (!is_accented) return false;
  }
  return true;
}

std::string without_spaces(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

std::size_t count_spaces(std::string_view text) {
  std::size_t spaces = 0;
  for (const char c : text) spaces += c == ' ';
  return spaces;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace nmt::text;
  const std::string_view input = nmt::fuzz::as_text(data, size);

  NMT_FUZZ_CHECK(is_valid_utf8(input) == is_well_formed_utf8(input, /*allow_nul=*/false),
                 "is_valid_utf8 accepts exactly well-formed UTF-8 without NUL");

  const std::string notebook = clean_notebook(input);
  NMT_FUZZ_CHECK(is_valid_utf8(notebook), "the notebook's cleaning gives valid UTF-8");
  NMT_FUZZ_CHECK(has_only_notebook_characters(notebook), "only the notebook's characters remain");
  NMT_FUZZ_CHECK(is_single_spaced(notebook), "the notebook's cleaning squeezes and trims spaces");
  NMT_FUZZ_CHECK(clean_notebook(notebook) == notebook, "the notebook's cleaning is idempotent");
  NMT_FUZZ_CHECK(count_words(notebook) == (notebook.empty() ? 0 : count_spaces(notebook) + 1),
                 "count_words counts the space-separated words");

  const std::string joined = join_punctuation(notebook);
  NMT_FUZZ_CHECK(without_spaces(joined) == without_spaces(notebook),
                 "join_punctuation changes only spaces");
  NMT_FUZZ_CHECK(is_single_spaced(joined), "join_punctuation leaves single spaces");
  NMT_FUZZ_CHECK(without_spaces(join_punctuation(input)) == without_spaces(input),
                 "join_punctuation changes only spaces, whatever its input");

  const std::string normalized = normalize(input);
  NMT_FUZZ_CHECK(is_well_formed_utf8(normalized, /*allow_nul=*/true),
                 "normalisation gives well-formed UTF-8");
  NMT_FUZZ_CHECK(is_single_spaced(normalized), "normalisation squeezes and trims whitespace");
  NMT_FUZZ_CHECK(normalize(normalized) == normalized, "normalisation is idempotent");
  NMT_FUZZ_CHECK(clean(input, CleanMode::kNormalize) == normalized &&
                     clean(input, CleanMode::kNotebook) == notebook,
                 "clean dispatches on its mode");
  return 0;
}
