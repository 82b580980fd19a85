#include "nmt/run/translation.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <ostream>
#include <sstream>

#include "nmt/error.h"
#include "nmt/run/stop_signal.h"

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

namespace {

// Hypothesis `rank` of every sentence of a text (a sentence's last when it has fewer), joined into
// the text's layout, scored by the sum of their scores. A text of one sentence without gaps gets
// its sentence's translation as it is.
decode::Translation join_hypotheses(const text::SplitText& split,
                                    const std::vector<std::vector<decode::Translation>>& sentences,
                                    std::size_t rank) {
  if (sentences.size() == 1 && split.gaps.front().empty() && split.gaps.back().empty()) {
    return sentences.front()[std::min(rank, sentences.front().size() - 1)];
  }
  std::vector<std::string> texts, decoded;
  decode::Translation joined;
  for (const auto& hypotheses : sentences) {
    const decode::Translation& hypothesis = hypotheses[std::min(rank, hypotheses.size() - 1)];
    texts.push_back(hypothesis.text);
    decoded.push_back(hypothesis.decoded);
    joined.score += hypothesis.score;
  }
  joined.text = text::join_sentences(split, texts);
  joined.decoded = text::join_sentences(split, decoded);
  return joined;
}

}  // namespace

InputTexts::InputTexts(const std::vector<std::string>& texts, SentenceForms forms)
    : cut_(forms.splitter,
           forms.casing ? std::optional<text::CaseLanguages>(*forms.casing) : std::nullopt) {
  for (const std::string& text : texts) cut_.add(text);
}

decode::TranslationReport InputTexts::join(decode::TranslationReport sentences) const {
  decode::TranslationReport texts = std::move(sentences);
  std::vector<std::vector<decode::Translation>> results = std::move(texts.results);
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (decode::Translation& hypothesis : results[i]) {
      hypothesis.text = cut_.in_source_case(i, std::move(hypothesis.text));
      hypothesis.decoded = cut_.in_source_case(i, std::move(hypothesis.decoded));
    }
  }
  texts.results.clear();
  std::size_t first = 0;
  for (const text::SplitText& split : cut_.texts()) {
    const std::size_t count = split.sentences.size();
    const std::vector<std::vector<decode::Translation>> own(
        std::make_move_iterator(results.begin() + static_cast<std::ptrdiff_t>(first)),
        std::make_move_iterator(results.begin() + static_cast<std::ptrdiff_t>(first + count)));
    first += count;
    if (own.empty()) {
      texts.results.push_back({decode::Translation{
          text::join_sentences(split, {}), text::join_sentences(split, {}), {}, 0.0f}});
      continue;
    }
    std::size_t ranks = 0;
    for (const auto& hypotheses : own) ranks = std::max(ranks, hypotheses.size());
    std::vector<decode::Translation> joined;
    for (std::size_t rank = 0; rank < ranks; ++rank) {
      joined.push_back(join_hypotheses(split, own, rank));
    }
    texts.results.push_back(std::move(joined));
  }
  return texts;
}

std::unique_ptr<text::SentenceSplitter> sentence_splitter(const OpenedRun& run,
                                                          bool split_sentences) {
  if (!split_sentences) return nullptr;
  return std::make_unique<text::SentenceSplitter>(run.config.data.source_lang);
}

text::CaseLanguages case_languages(const OpenedRun& run) {
  return {run.config.data.source_lang, run.config.data.target_lang};
}

decode::TranslationReport translate_texts(decode::Translator& translator,
                                          const std::vector<std::string>& texts,
                                          SentenceForms forms,
                                          const decode::SearchOptions& options) {
  const InputTexts inputs(texts, forms);
  return inputs.join(translator.translate(inputs.sentences(), options));
}

TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& texts,
                                     std::ostream& out,
                                     const OutputOptions& output) {
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const auto splitter = sentence_splitter(run, output.split_sentences);
  const text::CaseLanguages casing = case_languages(run);
  const decode::TranslationReport report = translate_texts(
      translator, texts, {splitter.get(), output.sentence_case ? &casing : nullptr},
      run.config.decode);
  out << format_translations(report, 0, output.show_scores) << std::flush;
  return {texts.size(), report.truncated_inputs};
}

TranslateSummary translate_html(OpenedRun& run,
                                const std::vector<std::string>& documents,
                                std::ostream& out,
                                const OutputOptions& output) {
  if (run.config.decode.n_best > 1 || output.show_scores) {
    throw ConfigError(
        "--format html gives one translation per input: leave out --n-best and --scores");
  }
  std::vector<std::unique_ptr<text::HtmlText>> parsed;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    try {
      parsed.push_back(std::make_unique<text::HtmlText>(documents[i]));
    } catch (const Error& error) {
      throw Error("HTML input " + std::to_string(i + 1) + ": " + error.what());
    }
    texts.insert(texts.end(), parsed.back()->texts().begin(), parsed.back()->texts().end());
  }
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const auto splitter = sentence_splitter(run, output.split_sentences);
  const text::CaseLanguages casing = case_languages(run);
  const decode::TranslationReport report = translate_texts(
      translator, texts, {splitter.get(), output.sentence_case ? &casing : nullptr},
      run.config.decode);
  std::size_t first = 0;
  for (const auto& document : parsed) {
    std::vector<std::string> translations;
    for (std::size_t i = 0; i < document->texts().size(); ++i) {
      translations.push_back(report.results[first + i].front().text);
    }
    first += translations.size();
    const std::string html = document->render(translations);
    out << html << (html.empty() || html.back() != '\n' ? "\n" : "");
  }
  out << std::flush;
  return {documents.size(), report.truncated_inputs};
}

TranslateSummary translate_html_stream(OpenedRun& run,
                                       int input,
                                       std::ostream& out,
                                       const OutputOptions& output) {
  std::string html;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t size = ::read(input, buffer, sizeof buffer);
    if (size < 0 && errno == EINTR) continue;
    if (size < 0) throw Error(std::string("cannot read input: ") + std::strerror(errno));
    if (size == 0) break;
    html.append(buffer, static_cast<std::size_t>(size));
  }
  return translate_html(run, {html}, out, output);
}

namespace {

// Complete lines (without "\n" and a "\r" before it) from a file descriptor, read as they arrive.
class InputLines {
 public:
  explicit InputLines(int fd) : fd_(fd) {}

  // Waits up to timeout_ms (-1: as long as it takes) for input and reads what has come; lines
  // completed go to `lines`. False when nothing came within the time.
  bool read_ready(int timeout_ms, std::vector<std::string>& lines) {
    pollfd ready{fd_, POLLIN, 0};
    const int count = ::poll(&ready, 1, timeout_ms);
    if (count < 0 && errno != EINTR)
      throw Error(std::string("cannot read input: ") + std::strerror(errno));
    if (count <= 0) return false;
    char buffer[1 << 16];
    const ssize_t size = ::read(fd_, buffer, sizeof buffer);
    if (size < 0 && errno == EINTR) return false;
    if (size < 0) throw Error(std::string("cannot read input: ") + std::strerror(errno));
    if (size == 0) {
      is_at_end_ = true;
      take_partial(lines);
      return true;
    }
    const char* end = buffer + size;
    for (const char* at = buffer; at < end;) {
      const auto* newline =
          static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
      partial_.append(at, newline ? newline : end);
      if (!newline) break;
      if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
      lines.push_back(std::move(partial_));
      partial_.clear();
      at = newline + 1;
    }
    return true;
  }

  // An unterminated last line (the input ended, or the user stopped it) is a line too.
  void take_partial(std::vector<std::string>& lines) {
    if (partial_.empty()) return;
    if (partial_.back() == '\r') partial_.pop_back();
    lines.push_back(std::move(partial_));
    partial_.clear();
  }

  bool is_at_end() const { return is_at_end_; }

 private:
  int fd_;
  std::string partial_;
  bool is_at_end_ = false;
};

}  // namespace

TranslateSummary translate_stream(OpenedRun& run,
                                  int input,
                                  std::ostream& out,
                                  const OutputOptions& output) {
  const StopOnSignal stop;
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const auto splitter = sentence_splitter(run, output.split_sentences);
  const text::CaseLanguages casing = case_languages(run);
  const SentenceForms forms{splitter.get(), output.sentence_case ? &casing : nullptr};
  TranslateSummary summary;
  std::vector<std::string> lines;
  const auto translate_lines = [&] {
    const decode::TranslationReport report =
        translate_texts(translator, lines, forms, run.config.decode);
    summary.truncated_inputs += report.truncated_inputs;
    out << format_translations(report, summary.inputs, output.show_scores) << std::flush;
    summary.inputs += lines.size();
    lines.clear();
  };
  InputLines input_lines(input);
  while (!input_lines.is_at_end()) {
    if (stop.requested().load()) {
      // Lines already sent to nmt are translated: what is in the pipe now, without waiting.
      while (!input_lines.is_at_end() && input_lines.read_ready(0, lines)) {
      }
      input_lines.take_partial(lines);
      summary.is_interrupted = true;
      break;
    }
    // With lines waiting, a pause in the input (nothing more ready at once) translates them, so
    // that a pipe that writes one line and waits for its answer gets it; a file or a fast
    // producer fills batches of kStreamChunkLines.
    const bool has_read = input_lines.read_ready(lines.empty() ? kPollMilliseconds : 0, lines);
    if ((!has_read && !lines.empty()) || lines.size() >= kStreamChunkLines) translate_lines();
  }
  if (!lines.empty()) translate_lines();
  return summary;
}

}  // namespace nmt::run
