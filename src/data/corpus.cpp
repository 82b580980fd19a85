#include "nmt/data/corpus.h"

#include <filesystem>
#include <istream>
#include <sstream>
#include <utility>

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

}  // namespace

Corpus read_tsv(std::istream& in, const std::string& name, TsvFormat format) {
  Corpus corpus;
  ReadReport& report = corpus.report;
  report.file = name;
  std::string line;
  while (std::getline(in, line)) {
    ++report.lines;
    std::string_view view(line);
    if (report.lines == 1 && view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    if (is_blank(view)) {
      ++report.blank;
      continue;
    }
    if (!text::is_valid_utf8(view)) {
      ++report.bad_utf8;
      note_problem(report, report.lines, "invalid UTF-8");
      continue;
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
      continue;
    }
    const std::string_view source = trim(is_tatoeba ? columns[1] : columns[0]);
    const std::string_view target = trim(is_tatoeba ? columns[3] : columns[1]);
    if (source.empty() || target.empty()) {
      ++report.empty_side;
      note_problem(report, report.lines,
                   std::string("empty ") + (source.empty() ? "source" : "target"));
      continue;
    }
    corpus.pairs.push_back({std::string(source), std::string(target)});
  }
  report.pairs = corpus.pairs.size();
  return corpus;
}

namespace {

// The file's text, decompressed when it is gzip data; DataError naming the file otherwise.
std::string read_corpus_text(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw DataError(path,
                    std::filesystem::exists(path, error) ? "not a regular file" : "no such file");
  }
  try {
    return read_maybe_compressed(path);
  } catch (const Error& error) {
    std::string reason = error.what();
    if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
    throw DataError(path, reason);
  }
}

// Lines without their "\n", "\r\n" or leading byte order mark; a final line end adds no line.
std::vector<std::string> split_lines(std::string text) {
  std::vector<std::string> lines;
  std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t stop = end;
    if (stop > start && text[stop - 1] == '\r') --stop;
    lines.push_back(text.substr(start, stop - start));
    start = end + 1;
  }
  return lines;
}

void throw_if_unusable(const Corpus& corpus, const std::string& name) {
  if (corpus.report.lines == corpus.report.blank) throw DataError(name, "the file is empty");
  if (corpus.pairs.empty()) {
    std::string detail =
        "no usable sentence pair in " + std::to_string(corpus.report.lines) + " lines";
    if (!corpus.report.first_problems.empty())
      detail += " (first problem: " + corpus.report.first_problems[0] + ")";
    throw DataError(name, detail);
  }
}

// A tab inside a plain-text sentence would split it in the run's TSV split files.
std::string tabs_to_spaces(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t') c = ' ';
  }
  return out;
}

}  // namespace

Corpus read_tsv_file(const std::string& path, TsvFormat format) {
  std::istringstream in(read_corpus_text(path));
  Corpus corpus = read_tsv(in, path, format);
  throw_if_unusable(corpus, path);
  return corpus;
}

Corpus read_aligned_lines(const std::vector<std::string>& source_lines,
                          const std::vector<std::string>& target_lines,
                          const std::string& source_name,
                          const std::string& target_name) {
  if (source_lines.size() != target_lines.size()) {
    throw DataError(source_name, "has " + std::to_string(source_lines.size()) + " lines but " +
                                     target_name + " has " + std::to_string(target_lines.size()) +
                                     ": aligned files need one sentence per line on both sides");
  }
  Corpus corpus;
  ReadReport& report = corpus.report;
  report.file = source_name + " + " + target_name;
  for (std::size_t i = 0; i < source_lines.size(); ++i) {
    ++report.lines;
    const std::string_view source = trim(source_lines[i]);
    const std::string_view target = trim(target_lines[i]);
    if (is_blank(source) && is_blank(target)) {
      ++report.blank;
      continue;
    }
    const bool is_source_valid = text::is_valid_utf8(source);
    if (!is_source_valid || !text::is_valid_utf8(target)) {
      ++report.bad_utf8;
      note_problem_in(report, is_source_valid ? target_name : source_name, i + 1, "invalid UTF-8");
      continue;
    }
    if (is_blank(source) || is_blank(target)) {
      ++report.empty_side;
      note_problem_in(
          report, is_blank(source) ? source_name : target_name, i + 1,
          "empty line opposite \"" + std::string(is_blank(source) ? target : source) + "\"");
      continue;
    }
    corpus.pairs.push_back({tabs_to_spaces(source), tabs_to_spaces(target)});
  }
  report.pairs = corpus.pairs.size();
  return corpus;
}

std::string CorpusFile::name() const { return is_aligned_pair() ? source + " + " + target : path; }

Corpus read_corpus(const CorpusFile& file, TsvFormat format) {
  if (!file.is_aligned_pair()) return read_tsv_file(file.path, format);
  Corpus corpus =
      read_aligned_lines(split_lines(read_corpus_text(file.source)),
                         split_lines(read_corpus_text(file.target)), file.source, file.target);
  throw_if_unusable(corpus, file.name());
  return corpus;
}

}  // namespace nmt::data
