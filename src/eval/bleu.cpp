#include "nmt/eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "eval/python_text.h"
#include "eval/references.h"

namespace nmt::eval {
namespace {

constexpr int kMaxOrder = 4;
// sacreBLEU's my_log(0): a zero precision drives the geometric mean to 0.
constexpr double kLogOfZero = -9999999999.0;

// Per order n = 1..4, each n-gram (tokens joined by one space) and how often it occurs.
using NgramCounts = std::array<std::unordered_map<std::string, int64_t>, kMaxOrder>;

// The sufficient statistics of BLEU, summed over lines.
struct BleuStats {
  int64_t sys_len = 0;
  int64_t ref_len = 0;
  std::array<int64_t, kMaxOrder> counts{};
  std::array<int64_t, kMaxOrder> totals{};
};

// sacreBLEU's BLEU._preprocess_segment: right-strip, tokenize, split.
std::vector<std::string> tokenize_line(std::string_view line) {
  const std::string tokenized = tokenize_13a(rstrip_python(line));
  std::vector<std::string> tokens;
  for (const std::string_view token : split_python(tokenized)) tokens.emplace_back(token);
  return tokens;
}

NgramCounts count_ngrams(const std::vector<std::string>& tokens) {
  NgramCounts ngrams;
  for (std::size_t start = 0; start < tokens.size(); ++start) {
    std::string key = tokens[start];
    for (int n = 1; n <= kMaxOrder && start + n <= tokens.size(); ++n) {
      if (n > 1) key += ' ' + tokens[start + n - 1];
      ++ngrams[n - 1][key];
    }
  }
  return ngrams;
}

// The reference length closest to hyp_len; the shorter one on a tie.
int64_t closest_ref_len(int64_t hyp_len, const std::vector<int64_t>& ref_lens) {
  int64_t closest_diff = -1;
  int64_t closest_len = -1;
  for (const int64_t ref_len : ref_lens) {
    const int64_t diff = std::llabs(hyp_len - ref_len);
    if (closest_diff == -1 || diff < closest_diff ||
        (diff == closest_diff && ref_len < closest_len)) {
      closest_diff = diff;
      closest_len = ref_len;
    }
  }
  return closest_len;
}

void add_line_stats(std::string_view hypothesis,
                    const std::vector<std::string_view>& references,
                    BleuStats& stats) {
  // Each reference n-gram may be matched as often as the reference with most of it has it.
  NgramCounts clip;
  std::vector<int64_t> ref_lens;
  for (const std::string_view reference : references) {
    const std::vector<std::string> tokens = tokenize_line(reference);
    ref_lens.push_back(static_cast<int64_t>(tokens.size()));
    const NgramCounts ngrams = count_ngrams(tokens);
    for (int n = 0; n < kMaxOrder; ++n) {
      for (const auto& [ngram, count] : ngrams[n]) clip[n][ngram] = std::max(clip[n][ngram], count);
    }
  }
  const std::vector<std::string> tokens = tokenize_line(hypothesis);
  const auto hyp_len = static_cast<int64_t>(tokens.size());
  stats.sys_len += hyp_len;
  stats.ref_len += closest_ref_len(hyp_len, ref_lens);
  const NgramCounts ngrams = count_ngrams(tokens);
  for (int n = 0; n < kMaxOrder; ++n) {
    for (const auto& [ngram, count] : ngrams[n]) {
      const auto found = clip[n].find(ngram);
      if (found != clip[n].end()) stats.counts[n] += std::min(count, found->second);
      stats.totals[n] += count;
    }
  }
}

// BLEU.compute_bleu with smooth_method "exp".
BleuScore compute_bleu(const BleuStats& stats, bool is_effective_order) {
  BleuScore result;
  result.counts = stats.counts;
  result.totals = stats.totals;
  result.sys_len = stats.sys_len;
  result.ref_len = stats.ref_len;
  if (stats.sys_len < stats.ref_len) {
    result.bp = stats.sys_len > 0 ? std::exp(1.0 - static_cast<double>(stats.ref_len) /
                                                       static_cast<double>(stats.sys_len))
                                  : 0.0;
  } else {
    result.bp = 1.0;
  }
  // No match of any order: 0, with all precisions 0 (sacreBLEU issue #141).
  if (std::all_of(stats.counts.begin(), stats.counts.end(), [](int64_t c) { return c == 0; })) {
    return result;
  }
  // NIST smoothing: the k-th order without a match gets precision 1 / (2^k * total).
  double smooth = 1.0;
  int effective_order = kMaxOrder;
  for (int n = 0; n < kMaxOrder; ++n) {
    if (stats.totals[n] == 0) break;
    if (is_effective_order) effective_order = n + 1;
    const auto total = static_cast<double>(stats.totals[n]);
    if (stats.counts[n] == 0) {
      smooth *= 2.0;
      result.precisions[n] = 100.0 / (smooth * total);
    } else {
      result.precisions[n] = 100.0 * static_cast<double>(stats.counts[n]) / total;
    }
  }
  double log_sum = 0.0;
  for (int n = 0; n < effective_order; ++n) {
    log_sum += result.precisions[n] > 0.0 ? std::log(result.precisions[n]) : kLogOfZero;
  }
  result.score = result.bp * std::exp(log_sum / effective_order);
  return result;
}

BleuScore score_corpus(const std::vector<std::string>& hypotheses,
                       const std::vector<std::vector<std::string>>& references,
                       bool is_effective_order) {
  const LineReferences line_refs = collect_references(hypotheses.size(), references);
  BleuStats stats;
  for (std::size_t line = 0; line < hypotheses.size(); ++line) {
    add_line_stats(hypotheses[line], line_refs.lines[line], stats);
  }
  BleuScore result = compute_bleu(stats, is_effective_order);
  result.signature = "nrefs:" + line_refs.nrefs +
                     "|case:mixed|eff:" + (is_effective_order ? "yes" : "no") +
                     "|tok:13a|smooth:exp|version:" + std::string(kSacrebleuVersion);
  return result;
}

}  // namespace

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references) {
  return score_corpus(hypotheses, references, /*is_effective_order=*/false);
}

BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references) {
  return score_corpus({hypothesis}, as_reference_sets(references), /*is_effective_order=*/true);
}

}  // namespace nmt::eval
