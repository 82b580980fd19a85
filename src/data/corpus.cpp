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

void note_problem(ReadReport& report, std::size_t line, const std::string& reason) {
  if (report.first_problems.size() < ReadReport::kMaxReportedProblems) {
    report.first_problems.push_back(report.file + ":" + std::to_string(line) + ": " + reason);
  }
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

Corpus read_tsv_file(const std::string& path, TsvFormat format) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw DataError(path,
                    std::filesystem::exists(path, error) ? "not a regular file" : "no such file");
  }
  std::string text;
  try {
    text = read_maybe_compressed(path);
  } catch (const Error& error) {
    std::string reason = error.what();
    if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
    throw DataError(path, reason);
  }
  std::istringstream in(std::move(text));
  Corpus corpus = read_tsv(in, path, format);
  if (corpus.report.lines == corpus.report.blank) throw DataError(path, "the file is empty");
  if (corpus.pairs.empty()) {
    std::string detail =
        "no usable sentence pair in " + std::to_string(corpus.report.lines) + " lines";
    if (!corpus.report.first_problems.empty())
      detail += " (first problem: " + corpus.report.first_problems[0] + ")";
    throw DataError(path, detail);
  }
  return corpus;
}

}  // namespace nmt::data
