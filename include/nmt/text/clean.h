// Sentence normalisation rules, applied to each side of a pair before tokenisation.
//
//  - kNotebook: byte-for-byte the classroom notebook's `clean_text` (Python `str.lower()`, space
//    around ¿?¡!, , every character outside a-zA-Z0-9áéíóúüñ¿?¡!, becomes a space, spaces
//    squeezed). Used with the word tokenizer.
//  - kNormalize: Unicode NFKC, whitespace runs squeezed to one space, ends trimmed; case and
//    punctuation kept. Used with subword tokenizers.
//
// Unicode data comes from utf8proc. Inputs must be valid UTF-8 (check with is_valid_utf8): an
// invalid byte is treated as an unknown character (a space for kNotebook, U+FFFD for kNormalize).
// Torch-free; never throws on any input; never logs.
#pragma once

#include <string>
#include <string_view>

namespace nmt::text {

enum class CleanMode { kNotebook, kNormalize };

// The notebook's clean_text.
std::string clean_notebook(std::string_view text);

// NFKC + whitespace squeeze + trim.
std::string normalize(std::string_view text);

// Dispatches on mode.
std::string clean(std::string_view text, CleanMode mode);

// True when text is well-formed UTF-8 without NUL bytes.
bool is_valid_utf8(std::string_view text);

// Number of space-separated words (runs of non-space characters).
std::size_t count_words(std::string_view text);

// Word-model detokenisation for display: joins the notebook's split punctuation back to its words,
// "¿ cómo estás ?" -> "¿cómo estás?", "hola , amigo" -> "hola, amigo".
std::string join_punctuation(std::string_view tokenized);

}  // namespace nmt::text
