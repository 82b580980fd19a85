// sacreBLEU's default BLEU tokenizer "13a" (Tokenizer13a, after mteval-v13a.pl as used by WMT):
// the text whose space-separated tokens BLEU counts n-grams over.
//
// In order: "<skipped>" and "-\n" are deleted, "\n" becomes a space, the entities &quot; &amp;
// &lt; &gt; are unescaped (in that order, one pass each), then four substitutions run over the
// space-padded line: every ASCII symbol except ' , - . is set apart by spaces; "." and "," are
// split off unless a digit comes before them, and again unless a digit comes after them (so "3,5"
// and "1.000" stay whole); "-" is split off after a digit. Whitespace runs (Python's str.split()
// set, Unicode included) become one space and the ends are trimmed. Non-ASCII characters are
// never split off.
//
// Input is UTF-8; an invalid byte is kept as it is. Torch-free; never throws; never logs.
#pragma once

#include <string>
#include <string_view>

namespace nmt::eval {

// Tokenizer13a()(text): space-separated tokens, no leading or trailing space.
std::string tokenize_13a(std::string_view text);

}  // namespace nmt::eval
