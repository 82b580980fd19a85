// Whole-text case mappings with ICU's full, language-aware rules ("ß" -> "SS", Turkish dotted
// i), for training-data augmentation (data/augment.h) and for translating text written in
// capitals. Torch-free.
#pragma once

#include <string>
#include <string_view>

namespace nmt::text {

// `text` in capitals or in lower case, by the rules of `language` (an ICU locale id such as "en"
// or "tr"; "" for the language-neutral root rules). Invalid UTF-8 comes back unchanged.
std::string to_upper(std::string_view text, const std::string& language);
std::string to_lower(std::string_view text, const std::string& language);

// True when text has at least `min_letters` cased letters and none of them is lower case
// ("I'M HUNGRY!", not "I", "NASA is here" or "123").
bool is_all_caps(std::string_view text, int min_letters = 2);

// How a sentence was written, as far as the model's input is changed for it.
enum class SourceCase {
  kAsWritten,  // mixed case: the model reads it unchanged
  kAllCaps,    // read in sentence case; the translation is put in capitals
  kAllLower,   // read with its first letter capitalised; the translation is left as it comes
};

// The languages whose rules adapt_case and restore_case follow for one model ("" for either: the
// language-neutral rules).
struct CaseLanguages {
  std::string source;
  std::string target;
};

// A sentence in the form a model trained on sentence-cased text reads best, and how it was
// written. Sentence case lowers everything but the first letter (and, in English, the pronoun
// "I"): names written in capitals come back in capitals, but the model reads them as words.
struct CaseAdapted {
  std::string model_input;
  SourceCase source_case = SourceCase::kAsWritten;
};
CaseAdapted adapt_case(std::string_view sentence, const std::string& source_language);

// The model's translation of an adapted sentence, in the casing its source was written in.
std::string restore_case(std::string translation,
                         SourceCase source_case,
                         const std::string& target_language);

}  // namespace nmt::text
