// Fuzzes the aligned-file reader (data/corpus.h read_corpus with "source" and "target": two plain
// or gzip-compressed files read line by line in step). The input is split at its first 0x1E
// (record separator) into the source file and the target file. Besides crashes and sanitizer
// reports it checks the reader's contracts: only DataError escapes, files of different line counts
// are refused naming both counts, every line pair is counted once, and returned sides are
// non-empty, trimmed, valid UTF-8 and free of tabs and line breaks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "corpus_checks.h"
#include "fuzz_support.h"
#include "nmt/data/corpus.h"
#include "nmt/error.h"

namespace {

using nmt::data::Corpus;

bool is_gzip(std::string_view text) { return text.size() >= 2 && text.substr(0, 2) == "\x1f\x8b"; }

// Lines as the reader counts them: one per line break, plus an unterminated last line.
std::size_t line_count(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const nmt::fuzz::ScratchFile source_file("source.txt");
  static const nmt::fuzz::ScratchFile target_file("target.txt");
  const std::string_view input = nmt::fuzz::as_text(data, size);
  const std::size_t separator = input.find('\x1e');
  const std::string_view source = input.substr(0, separator);
  const std::string_view target =
      separator == std::string_view::npos ? std::string_view() : input.substr(separator + 1);
  nmt::data::CorpusFile file;
  file.source = source_file.write(source);
  file.target = target_file.write(target);
  const bool is_plain = !is_gzip(source) && !is_gzip(target);
  const bool is_misaligned = is_plain && line_count(source) != line_count(target);
  Corpus corpus;
  try {
    corpus = nmt::data::read_corpus(file, nmt::data::TsvFormat::kAuto);
  } catch (const nmt::DataError& error) {
    if (is_misaligned) {
      const std::string expected = file.source + ": has " + std::to_string(line_count(source)) +
                                   " lines but " + file.target + " has " +
                                   std::to_string(line_count(target)) + ": aligned files";
      NMT_FUZZ_CHECK(std::string(error.what()).rfind(expected, 0) == 0,
                     "misaligned files are refused naming both line counts");
    }
    return 0;
  }
  NMT_FUZZ_CHECK(!is_misaligned, "misaligned files are refused");
  NMT_FUZZ_CHECK(!is_plain || corpus.report.lines == line_count(source), "every line pair is read");
  nmt::fuzz::check_returned_corpus(corpus);
  return 0;
}
