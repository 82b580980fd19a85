#include "nmt/run/translation.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

TranslateSummary translate_sentences(OpenedRun& run,
                                     const std::vector<std::string>& sentences,
                                     std::ostream& out,
                                     bool show_scores) {
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const decode::TranslationReport report = translator.translate(sentences, run.config.decode);
  out << format_translations(report, 0, show_scores) << std::flush;
  return {sentences.size(), report.truncated_inputs};
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

TranslateSummary translate_stream(OpenedRun& run, int input, std::ostream& out, bool show_scores) {
  const StopOnSignal stop;
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  TranslateSummary summary;
  std::vector<std::string> lines;
  const auto translate_lines = [&] {
    const decode::TranslationReport report = translator.translate(lines, run.config.decode);
    summary.truncated_inputs += report.truncated_inputs;
    out << format_translations(report, summary.inputs, show_scores) << std::flush;
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
