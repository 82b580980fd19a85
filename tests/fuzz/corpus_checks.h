// The corpus readers' contracts that the TSV and aligned-file targets both check on every corpus
// a reader returns: the report counts each line once, and every side is usable as a sentence.
#pragma once

#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "nmt/data/corpus.h"
#include "nmt/text/clean.h"

namespace nmt::fuzz {

inline bool is_trimmed_side(const std::string& side) {
  const std::string_view kTrimmed = " \r\v\f";
  return !side.empty() && kTrimmed.find(side.front()) == std::string_view::npos &&
         kTrimmed.find(side.back()) == std::string_view::npos;
}

inline void check_returned_corpus(const nmt::data::Corpus& corpus) {
  const nmt::data::ReadReport& report = corpus.report;
  NMT_FUZZ_CHECK(report.pairs == corpus.pairs.size(), "the report counts the returned pairs");
  NMT_FUZZ_CHECK(report.lines == report.blank + report.skipped() + report.pairs,
                 "every line is blank, skipped or a pair");
  NMT_FUZZ_CHECK(!corpus.pairs.empty(), "a reader returns at least one pair");
  for (const auto& pair : corpus.pairs) {
    for (const std::string* side : {&pair.source, &pair.target}) {
      NMT_FUZZ_CHECK(is_trimmed_side(*side), "a side is non-empty and trimmed");
      NMT_FUZZ_CHECK(nmt::text::is_valid_utf8(*side), "a side is valid UTF-8");
      NMT_FUZZ_CHECK(side->find_first_of("\t\n") == std::string::npos,
                     "a side holds no tab and no line break");
    }
  }
}

}  // namespace nmt::fuzz
