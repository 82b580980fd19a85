// `nmt translate` as library calls: translations of texts written one line per input, from a list
// or a stream. Each input is cut into sentences (text::SentenceSplitter, in the run's source
// language) unless the caller asks not to; its sentences are translated in one batch with every
// other input's and joined back into the input's layout. An input with several hypotheses (beam
// --n-best) gives Moses n-best lines, "index ||| text ||| score"; with show_scores a single
// hypothesis is "score<TAB>text" (a text's score: the sum of its sentences').
// Never logs; throws ConfigError for invalid decoding options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "nmt/decode/translator.h"
#include "nmt/run/open_run.h"
#include "nmt/text/casing.h"
#include "nmt/text/cut_texts.h"
#include "nmt/text/html_text.h"
#include "nmt/text/sentence_splitter.h"

namespace nmt::run {

// At most this many lines are read and translated together from a stream.
inline constexpr std::size_t kStreamChunkLines = 2000;

// The output lines of report; first_index numbers its first input in n-best lines.
std::string format_translations(const decode::TranslationReport& report,
                                std::size_t first_index,
                                bool show_scores);

// How often a stream without pending lines looks at the stop flag while it waits for input.
inline constexpr int kPollMilliseconds = 100;

// How texts become the sentences a model reads: cut by splitter (null: each line of a text is one
// sentence, text::split_lines) and, with casing, sentences written all in capitals or all in lower
// case read in sentence case (text::adapt_case), their translations put back (restore_case).
struct SentenceForms {
  const text::SentenceSplitter* splitter = nullptr;
  const text::CaseLanguages* casing = nullptr;
};

// Texts cut into the sentences the model translates, and the model's answer joined back per text.
class InputTexts {
 public:
  InputTexts(const std::vector<std::string>& texts, SentenceForms forms);
  // Every text's sentences, in order, as the model reads them.
  const std::vector<std::string>& sentences() const { return cut_.sentences(); }
  // One result per text from one per sentence: hypothesis k of a text joins hypothesis k of each
  // of its sentences (a sentence's last when it has fewer; each in its source's casing) with the
  // text's gaps and sums their scores; a text without a sentence is its whitespace, unscored.
  decode::TranslationReport join(decode::TranslationReport sentences) const;

 private:
  text::CutTexts cut_;
};

// The run's splitter (its data.source_lang's rules), or null when split_sentences is off.
std::unique_ptr<text::SentenceSplitter> sentence_splitter(const OpenedRun& run,
                                                          bool split_sentences);

// The run's languages for text::adapt_case (data.source_lang, data.target_lang).
text::CaseLanguages case_languages(const OpenedRun& run);

// The translations of texts: each cut into sentences as forms says, their sentences translated
// in one call, joined back per text (InputTexts::join).
decode::TranslationReport translate_texts(decode::Translator& translator,
                                          const std::vector<std::string>& texts,
                                          SentenceForms forms,
                                          const decode::SearchOptions& options);

struct OutputOptions {
  bool show_scores = false;
  bool split_sentences = true;  // off: each input is one sentence (--no-split)
  bool sentence_case = true;    // off: text in capitals or lower case is read as written
  bool is_html = false;         // inputs are HTML (--format html): translate_html
};

struct TranslateSummary {
  std::size_t inputs = 0;
  int64_t truncated_inputs = 0;  // inputs cut to decode::kMaxInputTokens
  bool is_interrupted = false;   // SIGINT or SIGTERM ended the input (translate_stream)
};

// Translates texts with run.config.decode and writes them to out.
TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& texts,
                                     std::ostream& out,
                                     const OutputOptions& output);

// The same for every line read from the file descriptor `input` (a "\r" before the newline is
// dropped; an unterminated last line counts), translated in batches cut where the input pauses
// (no more ready at once) or at kStreamChunkLines, each written and flushed before more input is
// awaited: a pipe that writes one sentence and waits for its translation gets it. SIGINT or
// SIGTERM ends the input: the lines already sent (those in the pipe too) are still translated and
// written, then is_interrupted is set. Throws nmt::Error when the input cannot be read.
TranslateSummary translate_stream(OpenedRun& run,
                                  int input,
                                  std::ostream& out,
                                  const OutputOptions& output);

// Translates HTML fragments or documents (text::HtmlText: text nodes translated sentence by
// sentence, markup kept) and writes each rendered, followed by a newline unless it ends with one.
// Throws ConfigError when asked for n-best lists or scores (an HTML answer has one translation)
// and nmt::Error naming the input when libxml2 gives up on one.
TranslateSummary translate_html(OpenedRun& run,
                                const std::vector<std::string>& documents,
                                std::ostream& out,
                                const OutputOptions& output);

// The same for everything read from the file descriptor `input` up to its end, as one document
// (HTML is not read line by line). Throws nmt::Error when the input cannot be read.
TranslateSummary translate_html_stream(OpenedRun& run,
                                       int input,
                                       std::ostream& out,
                                       const OutputOptions& output);

}  // namespace nmt::run
