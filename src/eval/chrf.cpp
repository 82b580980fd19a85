#include "nmt/eval/chrf.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "eval/python_text.h"
#include "eval/references.h"

namespace nmt::eval {
namespace {

constexpr int kCharOrder = 6;
constexpr double kBeta = 2.0;

// Per order n = 1..6, each character n-gram (a view into the whitespace-free line) and its count.
using CharNgrams = std::array<std::unordered_map<std::string_view, int64_t>, kCharOrder>;

// Per order: hypothesis n-grams, reference n-grams, matching n-grams.
struct OrderStats {
  int64_t hyp = 0;
  int64_t ref = 0;
  int64_t match = 0;
};
using ChrfStats = std::array<OrderStats, kCharOrder>;

// A whitespace-free line and its character n-grams, which point into text.
struct LineNgrams {
  std::string text;
  CharNgrams ngrams;
};

// extract_all_char_ngrams(line, 6, include_whitespace=False).
LineNgrams char_ngrams(std::string_view line) {
  LineNgrams result{remove_whitespace(line), {}};
  const std::string_view text = result.text;
  std::vector<std::size_t> starts;  // byte offset of each code point, plus the end
  for (std::size_t pos = 0; pos < text.size(); pos += decode_at(text, pos).size)
    starts.push_back(pos);
  starts.push_back(text.size());
  const std::size_t length = starts.size() - 1;
  for (int n = 1; n <= kCharOrder; ++n) {
    for (std::size_t i = 0; i + n <= length; ++i) {
      ++result.ngrams[n - 1][text.substr(starts[i], starts[i + n] - starts[i])];
    }
  }
  return result;
}

// CHRF._get_match_statistics for each order.
ChrfStats match_stats(const CharNgrams& hyp, const CharNgrams& ref) {
  ChrfStats stats;
  for (int n = 0; n < kCharOrder; ++n) {
    int64_t hyp_count = 0;
    for (const auto& [ngram, count] : hyp[n]) {
      hyp_count += count;
      const auto found = ref[n].find(ngram);
      if (found != ref[n].end()) stats[n].match += std::min(count, found->second);
    }
    // Hypothesis n-grams are not counted when the reference has none of this order.
    stats[n].hyp = ref[n].empty() ? 0 : hyp_count;
    for (const auto& entry : ref[n]) stats[n].ref += entry.second;
  }
  return stats;
}

// CHRF._compute_f_score without eps smoothing: F_beta of precision and recall averaged over the
// orders where both the hypothesis and the reference have n-grams.
double f_score(const ChrfStats& stats) {
  double avg_precision = 0.0;
  double avg_recall = 0.0;
  int effective_order = 0;
  for (const OrderStats& order : stats) {
    if (order.hyp > 0 && order.ref > 0) {
      avg_precision += static_cast<double>(order.match) / static_cast<double>(order.hyp);
      avg_recall += static_cast<double>(order.match) / static_cast<double>(order.ref);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  avg_precision /= effective_order;
  avg_recall /= effective_order;
  if (avg_precision + avg_recall == 0.0) return 0.0;
  const double factor = kBeta * kBeta;
  double score = (1.0 + factor) * avg_precision * avg_recall;
  score /= factor * avg_precision + avg_recall;
  return 100.0 * score;
}

// The statistics of the reference giving the best sentence chrF; the first one on a tie.
ChrfStats best_line_stats(std::string_view hypothesis,
                          const std::vector<std::string_view>& references) {
  const LineNgrams hyp = char_ngrams(hypothesis);
  ChrfStats best;
  double best_score = -1.0;
  for (const std::string_view reference : references) {
    const LineNgrams ref = char_ngrams(reference);
    const ChrfStats stats = match_stats(hyp.ngrams, ref.ngrams);
    const double score = f_score(stats);
    if (score > best_score) {
      best_score = score;
      best = stats;
    }
  }
  return best;
}

}  // namespace

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references) {
  const LineReferences line_refs = collect_references(hypotheses.size(), references);
  ChrfStats total;
  for (std::size_t line = 0; line < hypotheses.size(); ++line) {
    const ChrfStats stats = best_line_stats(hypotheses[line], line_refs.lines[line]);
    for (int n = 0; n < kCharOrder; ++n) {
      total[n].hyp += stats[n].hyp;
      total[n].ref += stats[n].ref;
      total[n].match += stats[n].match;
    }
  }
  ChrfScore result;
  result.score = f_score(total);
  result.signature =
      "nrefs:" + line_refs.nrefs +
      "|case:mixed|eff:yes|nc:6|nw:0|space:no|version:" + std::string(kSacrebleuVersion);
  return result;
}

ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references) {
  return corpus_chrf({hypothesis}, as_reference_sets(references));
}

}  // namespace nmt::eval
