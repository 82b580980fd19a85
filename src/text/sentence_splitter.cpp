#include "nmt/text/sentence_splitter.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <cctype>
#include <climits>
#include <mutex>
#include <stdexcept>

#include "nmt/error.h"

namespace nmt::text {
namespace {

bool is_space_at(std::string_view text, int32_t at, int32_t& next) {
  UChar32 code_point = 0;
  next = at;
  U8_NEXT(text.data(), next, static_cast<int32_t>(text.size()), code_point);
  return code_point >= 0 && u_isUWhiteSpace(code_point);
}

// The start of the whitespace that ends text[begin, end): end when none does.
int32_t trailing_space_start(std::string_view text, int32_t begin, int32_t end) {
  int32_t space_start = end;
  for (int32_t at = begin, next = 0; at < end; at = next) {
    if (!is_space_at(text, at, next)) {
      space_start = end;
    } else if (space_start == end) {
      space_start = at;
    }
  }
  return space_start;
}

// Appends text[begin, end) to `split`: its leading whitespace to the current gap, what follows up
// to the trailing whitespace as a sentence, and that whitespace as the next gap.
void add_segment(std::string_view text, int32_t begin, int32_t end, SplitText& split) {
  int32_t content = begin;
  for (int32_t next = 0; content < end && is_space_at(text, content, next);) content = next;
  split.gaps.back().append(text.substr(begin, content - begin));
  if (content == end) return;
  const int32_t space = trailing_space_start(text, content, end);
  split.sentences.emplace_back(text.substr(content, space - content));
  split.gaps.emplace_back(text.substr(space, end - space));
}

void check_size(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(INT32_MAX)) {
    throw Error("cannot split a text of more than 2 GiB into sentences");
  }
}

struct UTextCloser {
  void operator()(UText* text) const { utext_close(text); }
};

// ICU ends a sentence after "?" or "!" even inside a token, as in https://example.org/a?b=1.
// Between two ASCII non-space characters no sentence ends (scripts written without spaces between
// sentences, like Chinese, end them with their own marks, outside ASCII).
bool is_inside_ascii_token(std::string_view text, int32_t at) {
  const auto is_ascii_non_space = [](char c) {
    return static_cast<unsigned char>(c) < 0x80 && std::isspace(static_cast<unsigned char>(c)) == 0;
  };
  return at > 0 && at < static_cast<int32_t>(text.size()) && is_ascii_non_space(text[at - 1]) &&
         is_ascii_non_space(text[at]);
}

}  // namespace

struct SentenceSplitter::Rules {
  std::unique_ptr<icu::BreakIterator> prototype;
  std::mutex mutex;  // guards cloning the prototype; each split works on a clone of its own
};

SentenceSplitter::SentenceSplitter(const std::string& language)
    : rules_(std::make_unique<Rules>()) {
  UErrorCode status = U_ZERO_ERROR;
  // "ss=standard" asks ICU to wrap its rules in the locale's abbreviation suppressions.
  const std::string name = (language.empty() ? std::string("root") : language) + "@ss=standard";
  const icu::Locale locale(name.c_str());
  rules_->prototype.reset(icu::BreakIterator::createSentenceInstance(locale, status));
  if (U_FAILURE(status) || !rules_->prototype) {
    throw Error(std::string("cannot load ICU's sentence rules: ") + u_errorName(status));
  }
}

SentenceSplitter::~SentenceSplitter() = default;

SplitText SentenceSplitter::split(std::string_view text) const {
  check_size(text);
  std::unique_ptr<icu::BreakIterator> iterator;
  {
    const std::lock_guard<std::mutex> lock(rules_->mutex);
    iterator.reset(rules_->prototype->clone());
  }
  UErrorCode status = U_ZERO_ERROR;
  const std::unique_ptr<UText, UTextCloser> utext(
      utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status));
  if (iterator) iterator->setText(utext.get(), status);
  if (!iterator || U_FAILURE(status)) {
    throw Error(std::string("cannot split text into sentences: ") + u_errorName(status));
  }
  SplitText split;
  split.gaps.emplace_back();
  int32_t begin = iterator->first();
  for (int32_t end = iterator->next(); end != icu::BreakIterator::DONE; end = iterator->next()) {
    if (is_inside_ascii_token(text, end)) continue;
    add_segment(text, begin, end, split);
    begin = end;
  }
  return split;
}

std::string join_sentences(const SplitText& split, const std::vector<std::string>& translations) {
  if (translations.size() != split.sentences.size() ||
      split.gaps.size() != split.sentences.size() + 1) {
    throw std::invalid_argument("join_sentences: " + std::to_string(translations.size()) +
                                " translations for " + std::to_string(split.sentences.size()) +
                                " sentences");
  }
  std::string text = split.gaps.front();
  for (std::size_t i = 0; i < translations.size(); ++i) {
    text += translations[i];
    text += split.gaps[i + 1];
  }
  return text;
}

SplitText split_lines(std::string_view text) {
  check_size(text);
  SplitText split;
  split.gaps.emplace_back();
  const auto size = static_cast<int32_t>(text.size());
  for (int32_t begin = 0; begin <= size;) {
    int32_t end = begin;
    while (end < size && text[end] != '\n' && text[end] != '\r') ++end;
    add_segment(text, begin, end, split);
    if (end == size) break;
    const int32_t after =
        text[end] == '\r' && end + 1 < size && text[end + 1] == '\n' ? end + 2 : end + 1;
    split.gaps.back().append(text.substr(end, after - end));
    begin = after;
  }
  return split;
}

}  // namespace nmt::text
