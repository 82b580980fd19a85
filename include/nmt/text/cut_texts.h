// Texts cut into the sentences a model reads, and its translations put back in each source
// sentence's casing: the one loop behind `nmt translate` (run/translation.h) and both APIs of
// `nmt serve` (serve/api.h), which then join the translations per text each in its own result
// type. A text is cut by a SentenceSplitter, or at its line breaks without one (split_lines); with
// casing languages, a sentence written all in capitals or all in lower case is read in sentence
// case (casing.h). Torch-free; never logs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nmt/text/casing.h"
#include "nmt/text/sentence_splitter.h"

namespace nmt::text {

class CutTexts {
 public:
  // splitter: null cuts at line breaks; it must outlive add(). casing: none reads sentences as
  // written.
  CutTexts(const SentenceSplitter* splitter, std::optional<CaseLanguages> casing);

  // Cuts one more text (SentenceSplitter's errors pass through).
  void add(const std::string& text);

  // Per text: its sentences as written and the gaps around them.
  const std::vector<SplitText>& texts() const { return texts_; }
  // Every text's sentences, in order, as the model reads them.
  const std::vector<std::string>& sentences() const { return sentences_; }
  // The translation of sentences()[i] in the casing its source was written in.
  std::string in_source_case(std::size_t i, std::string translation) const;

 private:
  const SentenceSplitter* splitter_;
  std::optional<CaseLanguages> casing_;
  std::vector<SplitText> texts_;
  std::vector<std::string> sentences_;
  std::vector<SourceCase> cases_;  // per sentence
};

}  // namespace nmt::text
