// Fuzzes the sacreBLEU reimplementation (nmt/eval/) on arbitrary text: the 13a tokenizer, corpus
// and sentence BLEU and chrF, and the score report. Input lines are "hypothesis<TAB>reference..."
// (a missing reference is empty). Checked: nmt::Error is thrown exactly when the documented
// conditions hold; scores lie in [0, 100]; a hypothesis scored against itself gets 100 (or 0 when
// it has no n-gram of the orders counted); the tokenizer leaves single spaces between tokens.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/python_text.h"
#include "fuzz_support.h"
#include "nmt/error.h"
#include "nmt/eval/scores.h"

namespace {

using nmt::eval::BleuScore;
using nmt::eval::ChrfScore;
using References = std::vector<std::vector<std::string>>;

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// The documented error conditions: no reference set, or a line whose references are all empty.
bool is_refused(const References& references) {
  if (references.empty()) return true;
  for (std::size_t line = 0; line < references.front().size(); ++line) {
    bool has_reference = false;
    for (const auto& set : references) has_reference = has_reference || !set[line].empty();
    if (!has_reference) return true;
  }
  return false;
}

bool is_close(double value, double expected) { return std::fabs(value - expected) < 1e-9; }

void check_bleu(const BleuScore& bleu) {
  NMT_FUZZ_CHECK(bleu.score >= 0.0 && bleu.score <= 100.0 + 1e-9, "BLEU lies in [0, 100]");
  NMT_FUZZ_CHECK(bleu.bp >= 0.0 && bleu.bp <= 1.0, "the brevity penalty lies in [0, 1]");
  for (std::size_t n = 0; n < bleu.counts.size(); ++n) {
    NMT_FUZZ_CHECK(bleu.counts[n] >= 0 && bleu.counts[n] <= bleu.totals[n],
                   "matches never exceed the hypothesis n-grams");
    NMT_FUZZ_CHECK(bleu.precisions[n] >= 0.0 && bleu.precisions[n] <= 100.0,
                   "precisions lie in [0, 100]");
  }
}

void check_chrf(const ChrfScore& chrf) {
  NMT_FUZZ_CHECK(chrf.score >= 0.0 && chrf.score <= 100.0 + 1e-9, "chrF lies in [0, 100]");
}

bool has_non_space(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    if (!nmt::eval::split_python(line).empty()) return true;
  }
  return false;
}

// Scores the non-empty hypotheses against themselves: every n-gram matches.
void check_self_scores(const std::vector<std::string>& lines) {
  std::vector<std::string> hypotheses;
  for (const std::string& line : lines) {
    if (!line.empty()) hypotheses.push_back(line);
  }
  if (hypotheses.empty()) return;
  const References self{hypotheses};
  const nmt::eval::Scores scores = nmt::eval::score_corpus(hypotheses, self);
  const bool has_4grams = scores.bleu.totals[3] > 0;
  NMT_FUZZ_CHECK(is_close(scores.bleu.score, has_4grams ? 100.0 : 0.0),
                 "self-BLEU is 100 when there are 4-grams, else 0");
  NMT_FUZZ_CHECK(is_close(scores.chrf.score, has_non_space(hypotheses) ? 100.0 : 0.0),
                 "self-chrF is 100 when there are characters, else 0");
  for (const std::string& hypothesis : hypotheses) {
    const BleuScore bleu = nmt::eval::sentence_bleu(hypothesis, {hypothesis});
    NMT_FUZZ_CHECK(is_close(bleu.score, bleu.totals[0] > 0 ? 100.0 : 0.0),
                   "sentence self-BLEU is 100 when there are tokens, else 0");
    const ChrfScore chrf = nmt::eval::sentence_chrf(hypothesis, {hypothesis});
    NMT_FUZZ_CHECK(is_close(chrf.score, has_non_space({hypothesis}) ? 100.0 : 0.0),
                   "sentence self-chrF is 100 when there are characters, else 0");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input = nmt::fuzz::as_text(data, size);

  const std::string tokenized = nmt::eval::tokenize_13a(input);
  std::string respaced;
  for (const std::string_view token : nmt::eval::split_python(tokenized)) {
    if (!respaced.empty()) respaced.push_back(' ');
    respaced.append(token);
  }
  NMT_FUZZ_CHECK(respaced == tokenized, "13a tokens are separated by single spaces");

  std::vector<std::string> hypotheses;
  References references;
  const std::vector<std::string> lines = split(input, '\n');
  for (std::size_t line = 0; line < lines.size(); ++line) {
    const std::vector<std::string> columns = split(lines[line], '\t');
    hypotheses.push_back(columns[0]);
    while (references.size() + 1 < columns.size()) {
      references.emplace_back(hypotheses.size() - 1, std::string());
    }
    for (std::size_t set = 0; set < references.size(); ++set) {
      references[set].push_back(set + 1 < columns.size() ? columns[set + 1] : std::string());
    }
  }

  bool was_refused = false;
  try {
    const nmt::eval::Scores scores = nmt::eval::score_corpus(hypotheses, references);
    check_bleu(scores.bleu);
    check_chrf(scores.chrf);
    NMT_FUZZ_CHECK(!nmt::eval::scores_text(scores).empty(), "the report has text");
    NMT_FUZZ_CHECK(nmt::eval::scores_json(scores).contains("bleu"), "the JSON report has BLEU");
    for (std::size_t line = 0; line < hypotheses.size(); ++line) {
      std::vector<std::string> line_references;
      for (const auto& set : references) line_references.push_back(set[line]);
      check_bleu(nmt::eval::sentence_bleu(hypotheses[line], line_references));
      check_chrf(nmt::eval::sentence_chrf(hypotheses[line], line_references));
    }
  } catch (const nmt::Error&) {
    was_refused = true;
  }
  NMT_FUZZ_CHECK(was_refused == is_refused(references),
                 "scoring is refused exactly when a line has no reference");
  check_self_scores(hypotheses);
  return 0;
}
