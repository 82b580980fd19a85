// chrF (Popović 2015) exactly as sacreBLEU 2.6.0's CHRF() computes it with its defaults: character
// n-grams n = 1..6 over UTF-8 code points (not bytes) after every whitespace character is removed,
// no word n-grams, mixed case, beta = 2, and "effective order" averaging rather than eps smoothing.
//
// Per order n, a line contributes (hypothesis n-grams, reference n-grams, matches), the hypothesis
// count being 0 when the reference has no n-gram of that order. With several references a line
// keeps the statistics of the reference with the best sentence-level chrF (the first on a tie).
// Corpus chrF sums the statistics over lines, then averages precision and recall over the orders
// where both counts are positive and returns 100 * F_beta of the two averages.
// references[k][i] is the k-th reference of line i; empty references are dropped from their line.
//
// Throws nmt::Error when there is no reference set, when a reference set's line count differs from
// the hypotheses' ("hypotheses have 500 lines, reference set 2 has 499"), or when all references
// of a line are empty. No lines at all give a score of 0. Torch-free; never logs.
#pragma once

#include <string>
#include <vector>

namespace nmt::eval {

// sacreBLEU's CHRFScore value and its signature.
struct ChrfScore {
  double score = 0.0;     // 0..100
  std::string signature;  // "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"
};

// sacrebleu.corpus_chrf(hypotheses, references).
ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references);

// sacrebleu.sentence_chrf(hypothesis, references): the corpus score of one line.
ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references);

}  // namespace nmt::eval
