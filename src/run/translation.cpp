#include "nmt/run/translation.h"

#include <istream>
#include <ostream>
#include <sstream>

namespace nmt::run {

std::string format_translations(const decode::TranslationReport& report,
                                std::size_t first_index,
                                bool show_scores) {
  std::ostringstream out;
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const auto& hypotheses = report.results[i];
    if (hypotheses.size() > 1) {
      for (const auto& hypothesis : hypotheses) {
        out << first_index + i << " ||| " << hypothesis.text << " ||| " << hypothesis.score << '\n';
      }
    } else if (show_scores) {
      out << hypotheses.front().score << '\t' << hypotheses.front().text << '\n';
    } else {
      out << hypotheses.front().text << '\n';
    }
  }
  return out.str();
}

TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& sentences,
                                     std::ostream& out,
                                     bool show_scores) {
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const decode::TranslationReport report = translator.translate(sentences, run.config.decode);
  out << format_translations(report, 0, show_scores) << std::flush;
  return {sentences.size(), report.truncated_inputs};
}

TranslateSummary translate_stream(OpenedRun& run,
                                  std::istream& in,
                                  std::ostream& out,
                                  bool show_scores) {
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  TranslateSummary summary;
  std::vector<std::string> lines;
  auto flush = [&] {
    const decode::TranslationReport report = translator.translate(lines, run.config.decode);
    summary.truncated_inputs += report.truncated_inputs;
    out << format_translations(report, summary.inputs, show_scores) << std::flush;
    summary.inputs += lines.size();
    lines.clear();
  };
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == kStreamChunkLines) flush();
  }
  if (!lines.empty()) flush();
  return summary;
}

}  // namespace nmt::run
