// Fuzzes the corpus reader (data/corpus.h) on arbitrary file content, plain or gzip-compressed, in
// each of the three layouts, and the plain-text line reader (nmt/io.h read_lines: sentences to
// translate, hypothesis and reference files). Besides crashes and sanitizer reports it checks the
// readers' documented contracts: only DataError escapes, every line is counted once, returned sides
// are trimmed, valid UTF-8 and tab-free, kAuto finds exactly the pairs of kTatoeba plus kAnki, and
// read_lines returns one line per line break (plus an unterminated last line).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus_checks.h"
#include "fuzz_support.h"
#include "nmt/data/corpus.h"
#include "nmt/error.h"
#include "nmt/io.h"

namespace {

using nmt::data::Corpus;
using nmt::data::ReadReport;
using nmt::data::TsvFormat;

void check_corpus(const Corpus& corpus) {
  const ReadReport& report = corpus.report;
  nmt::fuzz::check_returned_corpus(corpus);
  NMT_FUZZ_CHECK(
      report.first_problems.size() == std::min(report.skipped(), ReadReport::kMaxReportedProblems),
      "the first skipped lines are reported");
}

// Pairs read in this layout; 0 when the reader refuses the file.
std::size_t pairs_read(const std::string& path, TsvFormat format) {
  try {
    const Corpus corpus = nmt::data::read_tsv_file(path, format);
    check_corpus(corpus);
    return corpus.pairs.size();
  } catch (const nmt::DataError&) {
    return 0;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const nmt::fuzz::ScratchFile file("corpus.tsv");
  const std::string& path = file.write(nmt::fuzz::as_text(data, size));
  const std::size_t any = pairs_read(path, TsvFormat::kAuto);
  const std::size_t tatoeba = pairs_read(path, TsvFormat::kTatoeba);
  const std::size_t anki = pairs_read(path, TsvFormat::kAnki);
  NMT_FUZZ_CHECK(any == tatoeba + anki, "kAuto reads each line by its column count");

  const std::string_view text = nmt::fuzz::as_text(data, size);
  const auto line_breaks = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  const bool has_unterminated_line = !text.empty() && text.back() != '\n';
  const std::vector<std::string> lines = nmt::read_lines(path);
  NMT_FUZZ_CHECK(lines.size() == line_breaks + has_unterminated_line,
                 "read_lines returns every line");
  return 0;
}
