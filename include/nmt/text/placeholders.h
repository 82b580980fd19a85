// Spans a translation must keep verbatim — URLs, e-mail addresses, numbers and codes, rare names —
// carried through the model as placeholders: "Call 555-0199 now." becomes "Call ⦅1⦆ now.", the
// model (trained with such pairs, data.augment_placeholders) writes "Llama al ⦅1⦆ ahora." and
// the original is put back. A model that spells "555-0199" piece by piece garbles it; one that
// copies a single placeholder piece does not (OpenNMT's and Marian's users protect spans alike).
//
// A span is one whitespace-separated token with its surrounding punctuation stripped ("2023." ->
// "2023", "(https://example.org/docs)" -> the URL, "Zbigniew's" -> "Zbigniew"). Placeholders are
// ⦅1⦆ … ⦅9⦆: characters NFKC leaves alone (clean.h), so cleaning never rewrites them, and that
// people do not type. Torch-free; never throws on any input; never logs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/text/tokenizer.h"

namespace nmt::text {

inline constexpr int kMaxPlaceholders = 9;

// "⦅n⦆", n in 1..kMaxPlaceholders.
std::string placeholder(int number);

// ⦅1⦆ … ⦅9⦆ in order: the pieces a subword vocabulary keeps whole (SentencePiece's
// user_defined_symbols) when a run is trained with placeholders.
std::vector<std::string> placeholder_symbols();

// True when both tokenizers keep every placeholder as one piece (next to at most the piece of the
// space before it) and give it back unchanged: a vocabulary trained with them. Only a model trained
// on such a vocabulary has learnt to copy placeholders; others get text as it is.
bool keeps_placeholders(const TokenizerPair& tokenizers);

enum class SpanKind {
  kUrl,     // http://, https://, ftp:// or www.
  kEmail,   // local@domain.tld
  kNumber,  // any token with an ASCII digit: numbers, times, phone numbers, codes
  kName,    // a capitalised word of letters (hyphens and apostrophes inside allowed)
};

struct VerbatimSpan {
  std::size_t begin = 0;  // byte offset in the text
  std::size_t size = 0;   // bytes
  SpanKind kind = SpanKind::kNumber;
};

// The text's tokens that are URLs, e-mail addresses, numbers or codes, or capitalised words, in
// order. Which of them to protect is the caller's choice (protect_spans' `keep`).
std::vector<VerbatimSpan> find_verbatim_spans(std::string_view text);

struct ProtectedText {
  std::string text;                    // the input with placeholders in place of the spans
  std::vector<std::string> originals;  // originals[n - 1] is what ⦅n⦆ stands for
  bool held_placeholders = false;      // the input held "⦅" already: nothing was protected
};

// Replaces the spans `keep` accepts by placeholders, numbered in order of first appearance; kept
// names and numbers one space apart ("Tran Thi Lan", "WI 7638") are one span; the same string
// gets the same number; spans beyond kMaxPlaceholders distinct strings stay as they
// are. A text that holds "⦅" already is returned unchanged, with no originals, so that a user's
// own ⦅1⦆ is never taken for a placeholder.
ProtectedText protect_spans(std::string_view text,
                            const std::function<bool(const VerbatimSpan&, std::string_view)>& keep);

// The spans of a cleaned sentence that a model with this source vocabulary gets as placeholders:
// URLs, e-mail addresses, numbers and codes always; a capitalised word only when the vocabulary
// spells it in short pieces, a name it has not learnt ("Zbigniew", not "Japan"), and the
// sentence's first word only when the vocabulary spells its lower case in pieces too ("My" is
// "▁M" "y", but "▁my" is one piece: a word, not a name).
ProtectedText protect_for_model(std::string_view sentence, const Tokenizer& source);

// Replaces every whole-word occurrence in text of one of `originals` (longest first) by its
// placeholder: the other side of a training pair, protected with the numbers its source got.
std::string apply_placeholders(std::string_view text, const std::vector<std::string>& originals);

// Puts the source's originals back in its translation. A placeholder with no original (the model
// wrote ⦅7⦆ for a sentence with two) stands for the first original the translation lacks, or,
// when it lacks none, is dropped with the space before it. The translation of a source that held
// placeholders of its own is returned as it is.
std::string restore_spans(std::string_view translation, const ProtectedText& source);

}  // namespace nmt::text
