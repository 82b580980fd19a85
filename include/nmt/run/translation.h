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

// Lines read and translated together from a stream, so that output starts before the input ends.
inline constexpr std::size_t kStreamChunkLines = 2000;

// The output lines of report; first_index numbers its first input in n-best lines.
std::string format_translations(const decode::TranslationReport& report,
                                std::size_t first_index,
                                bool show_scores);

struct TranslateSummary {
  std::size_t inputs = 0;
  int64_t truncated_inputs = 0;  // inputs cut to decode::kMaxInputTokens
};

// Translates sentences with run.config.decode and writes them to out.
TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& sentences,
                                     std::ostream& out,
                                     bool show_scores);

// The same for every line of in (a "\r" before the newline is dropped), flushed chunk by chunk.
TranslateSummary translate_stream(OpenedRun& run,
                                  std::istream& in,
                                  std::ostream& out,
                                  bool show_scores);

}  // namespace nmt::run
