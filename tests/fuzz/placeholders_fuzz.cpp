// Fuzzes the spans a translation keeps verbatim (nmt/text/placeholders.h) on arbitrary bytes: the
// input's first line is a source sentence, the rest a translation. Checked properties: the spans
// found lie inside the text, in order, without overlapping; protecting every span and restoring
// the protected text gives the source back byte for byte, with at most kMaxPlaceholders originals,
// each a part of the source; a source that holds "⦅" is left as it is; the originals put into the
// translation as placeholders and restored give the translation back; restoring any text with
// any source's originals never fails.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "nmt/text/placeholders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace nmt::text;
  const std::string_view input = nmt::fuzz::as_text(data, size);
  const std::size_t line_end = input.find('\n');
  const std::string_view source = input.substr(0, line_end);
  const std::string_view translation =
      line_end == std::string_view::npos ? std::string_view() : input.substr(line_end + 1);
  const std::string_view open = "\xe2\xa6\x85";  // ⦅

  std::size_t previous_end = 0;
  for (const VerbatimSpan& span : find_verbatim_spans(source)) {
    NMT_FUZZ_CHECK(span.size > 0 && span.begin >= previous_end && span.begin + span.size <= source.size(),
                   "spans lie inside the text, in order, apart");
    previous_end = span.begin + span.size;
  }

  const ProtectedText all = protect_spans(source, [](const VerbatimSpan&, std::string_view) {
    return true;
  });
  NMT_FUZZ_CHECK(all.originals.size() <= static_cast<std::size_t>(kMaxPlaceholders),
                 "at most kMaxPlaceholders originals");
  for (const std::string& original : all.originals) {
    NMT_FUZZ_CHECK(!original.empty() && source.find(original) != std::string_view::npos,
                   "an original is a part of the source");
  }
  const bool held = source.find(open) != std::string_view::npos;
  NMT_FUZZ_CHECK(all.held_placeholders == held, "a source with ⦅ is recognised as such");
  NMT_FUZZ_CHECK(!held || (all.text == source && all.originals.empty()),
                 "a source that holds ⦅ is left as it is");
  NMT_FUZZ_CHECK(restore_spans(all.text, all) == source, "protect then restore gives the source back");

  if (translation.find(open) == std::string_view::npos) {
    NMT_FUZZ_CHECK(restore_spans(apply_placeholders(translation, all.originals), all) == translation,
                   "placeholders put into a translation and restored give it back");
  }
  (void)restore_spans(translation, all);
  return 0;
}
