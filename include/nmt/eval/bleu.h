// BLEU (Papineni et al., 2002) exactly as sacreBLEU 2.6.0 computes it with its defaults: the 13a
// tokenizer (nmt/eval/tokenizer_13a.h) on each right-stripped line, mixed case, n-grams n = 1..4,
// "exp" smoothing (mteval-v13a's NIST method, Chen & Cherry 2014 method 3), and the brevity
// penalty against the closest reference length (the shorter one on a tie).
//
// Per line, a hypothesis n-gram matches at most as often as it occurs in the reference that has it
// most often. Counts and lengths are summed over the corpus before precisions are taken.
// Multiple references: references[k][i] is the k-th reference of line i; an empty reference is
// dropped from its line (sacreBLEU's variable reference count, signature "nrefs:var").
//
// Throws nmt::Error when there is no reference set, when a reference set's line count differs from
// the hypotheses' ("hypotheses have 500 lines, reference set 2 has 499"), or when all references
// of a line are empty. No lines at all give a score of 0. Torch-free; never logs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/eval/tokenizer_13a.h"

namespace nmt::eval {

// sacreBLEU's BLEUScore fields and its signature.
struct BleuScore {
  double score = 0.0;                  // 0..100
  std::array<int64_t, 4> counts{};     // matching n-grams, n = 1..4
  std::array<int64_t, 4> totals{};     // hypothesis n-grams
  std::array<double, 4> precisions{};  // percentages, as sacreBLEU reports them
  double bp = 0.0;                     // brevity penalty
  int64_t sys_len = 0;                 // hypothesis tokens
  int64_t ref_len = 0;                 // closest reference tokens, summed over lines
  std::string signature;  // "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
};

// sacrebleu.corpus_bleu(hypotheses, references) with BLEU()'s defaults (effective order off: a
// corpus without any 4-gram scores 0).
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references);

// sacrebleu.sentence_bleu(hypothesis, references): one line, effective order on (orders with no
// hypothesis n-gram are left out of the geometric mean), signature "eff:yes".
BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references);

}  // namespace nmt::eval
