// Fuzzes what nmt does to the text people send before the model sees it (docs/real-text.md):
// sentence splitting (nmt/text/sentence_splitter.h) and HTML's text (nmt/text/html_text.h), on
// arbitrary bytes. Checked properties: a text's gaps and sentences give it back byte for byte, with
// the splitter and at line breaks alone; no sentence is empty; libxml2's parse either succeeds or
// throws nmt::Error (nothing else), and a parsed text renders with other texts and again with its
// own, as before; case mappings (nmt/text/casing.h) give valid UTF-8 back for valid UTF-8 and
// leave invalid UTF-8 as it is, and a sentence is written as-is only when it is neither all
// capitals nor all lower case.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "nmt/error.h"
#include "nmt/text/casing.h"
#include "nmt/text/html_text.h"
#include "nmt/text/sentence_splitter.h"

namespace {

bool gives_back(const nmt::text::SplitText& split, std::string_view text) {
  for (const std::string& sentence : split.sentences) {
    if (sentence.empty()) return false;
  }
  return split.gaps.size() == split.sentences.size() + 1 &&
         nmt::text::join_sentences(split, split.sentences) == text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace nmt::text;
  const std::string_view input = nmt::fuzz::as_text(data, size);
  static const SentenceSplitter english("en");
  NMT_FUZZ_CHECK(gives_back(english.split(input), input), "the splitter keeps every byte");
  NMT_FUZZ_CHECK(gives_back(split_lines(input), input), "split_lines keeps every byte");
  for (const char* language : {"en", "tr", "el"}) {
    const std::string upper = to_upper(input, language);
    NMT_FUZZ_CHECK(to_lower(upper, language) == to_lower(to_lower(upper, language), language),
                   "lower case is stable");
    const CaseAdapted adapted = adapt_case(input, language);
    NMT_FUZZ_CHECK(adapted.source_case != SourceCase::kAsWritten || adapted.model_input == input,
                   "a sentence as written reaches the model unchanged");
    (void)restore_case(adapted.model_input, adapted.source_case, language);
  }
  try {
    const HtmlText html(input);
    const std::string same = html.render(html.texts());
    (void)html.render(std::vector<std::string>(html.texts().size(), "<x> & \xff y"));
    NMT_FUZZ_CHECK(html.render(html.texts()) == same, "rendering again gives the same HTML");
  } catch (const nmt::Error&) {
    // libxml2 gave up (nesting deeper than 256): refused, as it must be.
  }
  return 0;
}
