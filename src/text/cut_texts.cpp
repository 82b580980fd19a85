#include "nmt/text/cut_texts.h"

#include <utility>

namespace nmt::text {

CutTexts::CutTexts(const SentenceSplitter* splitter, std::optional<CaseLanguages> casing)
    : splitter_(splitter), casing_(std::move(casing)) {}

void CutTexts::add(const std::string& text) {
  texts_.push_back(splitter_ ? splitter_->split(text) : split_lines(text));
  for (const std::string& sentence : texts_.back().sentences) {
    if (!casing_) {
      sentences_.push_back(sentence);
      cases_.push_back(SourceCase::kAsWritten);
      continue;
    }
    CaseAdapted adapted = adapt_case(sentence, casing_->source);
    sentences_.push_back(std::move(adapted.model_input));
    cases_.push_back(adapted.source_case);
  }
}

std::string CutTexts::in_source_case(std::size_t i, std::string translation) const {
  if (!casing_ || i >= cases_.size()) return translation;
  return restore_case(std::move(translation), cases_[i], casing_->target);
}

}  // namespace nmt::text
