// `nmt translate` as library calls: translations of sentences written one line per input, from a
// list or a stream. An input with several hypotheses (beam --n-best) gives Moses n-best lines,
// "index ||| text ||| score"; with show_scores a single hypothesis is "score<TAB>text".
// Never logs; throws ConfigError for invalid decoding options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "nmt/decode/translator.h"
#include "nmt/run/open_run.h"

namespace nmt::run {

// At most this many lines are read and translated together from a stream.
inline constexpr std::size_t kStreamChunkLines = 2000;

// The output lines of report; first_index numbers its first input in n-best lines.
std::string format_translations(const decode::TranslationReport& report,
                                std::size_t first_index,
                                bool show_scores);

// How often a stream without pending lines looks at the stop flag while it waits for input.
inline constexpr int kPollMilliseconds = 100;

struct TranslateSummary {
  std::size_t inputs = 0;
  int64_t truncated_inputs = 0;  // inputs cut to decode::kMaxInputTokens
  bool is_interrupted = false;   // SIGINT or SIGTERM ended the input (translate_stream)
};

// Translates sentences with run.config.decode and writes them to out.
TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& sentences,
                                     std::ostream& out,
                                     bool show_scores);

// The same for every line read from the file descriptor `input` (a "\r" before the newline is
// dropped; an unterminated last line counts), translated in batches cut where the input pauses
// (no more ready at once) or at kStreamChunkLines, each written and flushed before more input is
// awaited: a pipe that writes one sentence and waits for its translation gets it. SIGINT or
// SIGTERM ends the input: the lines already sent (those in the pipe too) are still translated and
// written, then is_interrupted is set. Throws nmt::Error when the input cannot be read.
TranslateSummary translate_stream(OpenedRun& run, int input, std::ostream& out, bool show_scores);

}  // namespace nmt::run
