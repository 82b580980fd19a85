#include "nmt/data/corpus.h"

#include <filesystem>
#include <istream>
#include <limits>
#include <new>
#include <optional>
#include <utility>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/clean.h"

namespace nmt::data {
namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> columns;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    columns.push_back(
        line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return columns;
    start = tab + 1;
  }
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\v\f") == std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \r\v\f");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \r\v\f");
  return text.substr(first, last - first + 1);
}

const char* expected_columns(TsvFormat format) {
  switch (format) {
    case TsvFormat::kTatoeba:
      return "4 columns (id, source, id, target)";
    case TsvFormat::kAnki:
      return "2 or 3 columns (source, target[, attribution])";
    case TsvFormat::kAuto:
      break;
  }
  return "2, 3 or 4 tab-separated columns";
}

void note_problem_in(ReadReport& report,
                     const std::string& file,
                     std::size_t line,
                     const std::string& reason) {
  if (report.first_problems.size() < ReadReport::kMaxReportedProblems) {
    report.first_problems.push_back(file + ":" + std::to_string(line) + ": " + reason);
  }
}

void note_problem(ReadReport& report, std::size_t line, const std::string& reason) {
  note_problem_in(report, report.file, line, reason);
}

// One line of a TSV file (without its "\n"): a pair added to the corpus, or counted and, among the
// first few, named with the reason it was skipped.
void add_tsv_line(std::string_view view,
                  TsvFormat format,
                  ReadReport& report,
                  std::vector<SentencePair>& pairs) {
  if (report.lines == 1 && view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  if (is_blank(view)) {
    ++report.blank;
    return;
  }
  if (!text::is_valid_utf8(view)) {
    ++report.bad_utf8;
    note_problem(report, report.lines, "invalid UTF-8");
    return;
  }
  const auto columns = split_tabs(view);
  const std::size_t n = columns.size();
  const bool is_tatoeba = n == 4 && format != TsvFormat::kAnki;
  const bool is_anki = (n == 2 || n == 3) && format != TsvFormat::kTatoeba;
  if (!is_tatoeba && !is_anki) {
    ++report.bad_columns;
    note_problem(
        report, report.lines,
        std::string("expected ") + expected_columns(format) + ", got " + std::to_string(n));
    return;
  }
  const std::string_view source = trim(is_tatoeba ? columns[1] : columns[0]);
  const std::string_view target = trim(is_tatoeba ? columns[3] : columns[1]);
  if (source.empty() || target.empty()) {
    ++report.empty_side;
    note_problem(report, report.lines,
                 std::string("empty ") + (source.empty() ? "source" : "target"));
    return;
  }
  pairs.push_back({std::string(source), std::string(target)});
}

void note_too_long(ReadReport& report,
                   const std::string& file,
                   std::size_t line,
                   std::size_t bytes) {
  ++report.too_long;
  note_problem_in(report, file, line,
                  "a line of " + std::to_string(bytes) + " bytes, longer than the " +
                      std::to_string(kMaxLineBytes) + " bytes a line may have");
}


// A tab inside a plain-text sentence would split it in the run's TSV split files.
std::string tabs_to_spaces(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t') c = ' ';
  }
  return out;
}

// One line pair of aligned files, as read_tsv's add_tsv_line for a TSV line.
void add_aligned_lines(const LineReader& source_lines,
                       const LineReader& target_lines,
                       ReadReport& report,
                       std::vector<SentencePair>& pairs) {
  const std::size_t line = report.lines;
  for (const LineReader* side : {&source_lines, &target_lines}) {
    if (side->is_too_long()) return note_too_long(report, side->path(), line, side->line_bytes());
  }
  std::string_view source_text = source_lines.line();
  std::string_view target_text = target_lines.line();
  if (line == 1) {
    for (std::string_view* text : {&source_text, &target_text}) {
      if (text->substr(0, 3) == "\xEF\xBB\xBF") text->remove_prefix(3);
    }
  }
  // Tabs become spaces before trimming, so that none is left at the edges of a side.
  const std::string source_spaced = tabs_to_spaces(source_text);
  const std::string target_spaced = tabs_to_spaces(target_text);
  const std::string_view source = trim(source_spaced);
  const std::string_view target = trim(target_spaced);
  const std::string& source_name = source_lines.path();
  const std::string& target_name = target_lines.path();
  if (is_blank(source) && is_blank(target)) {
    ++report.blank;
    return;
  }
  const bool is_source_valid = text::is_valid_utf8(source);
  if (!is_source_valid || !text::is_valid_utf8(target)) {
    ++report.bad_utf8;
    note_problem_in(report, is_source_valid ? target_name : source_name, line, "invalid UTF-8");
    return;
  }
  if (is_blank(source) || is_blank(target)) {
    ++report.empty_side;
    note_problem_in(
        report, is_blank(source) ? source_name : target_name, line,
        "empty line opposite " + check::quote(std::string(is_blank(source) ? target : source)));
    return;
  }
  pairs.push_back({std::string(source), std::string(target)});
}

}  // namespace

Corpus read_tsv(std::istream& in, const std::string& name, TsvFormat format) {
  Corpus corpus;
  corpus.report.file = name;
  std::string line;
  while (std::getline(in, line)) {
    ++corpus.report.lines;
    if (line.size() > kMaxLineBytes) {
      note_too_long(corpus.report, name, corpus.report.lines, line.size());
      continue;
    }
    add_tsv_line(line, format, corpus.report, corpus.pairs);
  }
  corpus.report.pairs = corpus.pairs.size();
  return corpus;
}

// The lines of one corpus file, read as a stream (nmt/io.h LineReader); the reader's errors
// become DataError naming the file: "x.gz: damaged or truncated gzip data". Outside the anonymous
// namespace: CorpusReader::State, declared in the header, holds it, and a member of a type with
// internal linkage makes GCC warn (-Wsubobject-linkage) in a unity build.
class CorpusLines {
 public:
  explicit CorpusLines(const std::string& path) : path_(path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
      throw DataError(path,
                      std::filesystem::exists(path, error) ? "not a regular file" : "no such file");
    }
    try {
      reader_.emplace(path, kMaxLineBytes);
    } catch (const Error& error) {
      throw as_data_error(error);
    }
  }

  bool next() {
    try {
      return reader_->next();
    } catch (const Error& error) {
      throw as_data_error(error);
    }
  }
  const LineReader& reader() const { return *reader_; }

 private:
  DataError as_data_error(const Error& error) const {
    std::string reason = error.what();
    if (reason.rfind(path_ + ": ", 0) == 0) reason.erase(0, path_.size() + 2);
    return DataError(path_, reason);
  }

  std::string path_;
  std::optional<LineReader> reader_;
};

struct CorpusReader::State {
  CorpusFile file;
  TsvFormat format;
  ReadReport report;
  CorpusLines source;  // the TSV file, or the source side of aligned files
  std::optional<CorpusLines> target;
  bool is_finished = false;

  State(const CorpusFile& file, TsvFormat format)
      : file(file),
        format(format),
        source(file.is_aligned_pair() ? file.source : file.path),
        target(file.is_aligned_pair() ? std::optional<CorpusLines>(std::in_place, file.target)
                                      : std::nullopt) {
    report.file = file.name();
  }

  // Reads one more line (pair of lines) into pairs; false at the end of the corpus.
  bool read_line(std::vector<SentencePair>& pairs) {
    const bool has_source = source.next();
    if (!target) {
      if (!has_source) return false;
      ++report.lines;
      const LineReader& reader = source.reader();
      if (reader.is_too_long()) {
        note_too_long(report, reader.path(), report.lines, reader.line_bytes());
      } else {
        add_tsv_line(reader.line(), format, report, pairs);
      }
      return true;
    }
    const bool has_target = target->next();
    if (has_source && has_target) {
      ++report.lines;
      add_aligned_lines(source.reader(), target->reader(), report, pairs);
      return true;
    }
    if (has_source != has_target) throw_misaligned(has_source ? source : *target);
    return false;
  }

  [[noreturn]] void throw_misaligned(CorpusLines& longer) {
    while (longer.next()) {
    }
    throw DataError(file.source, "has " + std::to_string(source.reader().line_number()) +
                                     " lines but " + file.target + " has " +
                                     std::to_string(target->reader().line_number()) +
                                     ": aligned files need one sentence per line on both sides");
  }

  void throw_if_unusable() const {
    if (report.lines == report.blank) throw DataError(file.name(), "the file is empty");
    if (report.pairs == 0) {
      std::string detail = "no usable sentence pair in " + std::to_string(report.lines) + " lines";
      if (!report.first_problems.empty()) {
        detail += " (first problem: " + report.first_problems[0] + ")";
      }
      throw DataError(file.name(), detail);
    }
  }
};

CorpusReader::CorpusReader(const CorpusFile& file, TsvFormat format)
    : state_(std::make_unique<State>(file, format)) {}

CorpusReader::~CorpusReader() = default;

bool CorpusReader::read(std::vector<SentencePair>& pairs, std::size_t at_most) {
  State& state = *state_;
  if (state.is_finished) return false;
  const std::size_t before = pairs.size();
  while (pairs.size() - before < at_most) {
    if (!state.read_line(pairs)) {
      state.is_finished = true;
      break;
    }
  }
  state.report.pairs += pairs.size() - before;
  if (state.is_finished) state.throw_if_unusable();
  return pairs.size() > before;
}

const ReadReport& CorpusReader::report() const { return state_->report; }

Corpus read_tsv_file(const std::string& path, TsvFormat format) {
  CorpusFile file;
  file.path = path;
  return read_corpus(file, format);
}

std::string CorpusFile::name() const { return is_aligned_pair() ? source + " + " + target : path; }

Corpus read_corpus(const CorpusFile& file, TsvFormat format) {
  Corpus corpus;
  CorpusReader reader(file, format);
  try {
    while (reader.read(corpus.pairs, std::numeric_limits<std::size_t>::max())) {
    }
  } catch (const std::bad_alloc&) {
    const std::size_t lines = reader.report().lines;
    std::vector<SentencePair>().swap(corpus.pairs);  // room for the message
    throw DataError(file.name(), "out of memory after " + std::to_string(lines) +
                                     " lines: its sentence pairs do not fit in the memory "
                                     "available (prepare it with `nmt prepare`, which streams "
                                     "it, or use a part of it)");
  }
  corpus.report = reader.report();
  return corpus;
}

}  // namespace nmt::data
