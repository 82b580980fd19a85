// Corpus BLEU and chrF together, as `nmt eval` and `nmt score` report them: sacreBLEU-style lines
// for people and one JSON object with stable keys for programs. Torch-free; throws nmt::Error on
// mismatched line counts and unreadable files; never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/eval/bleu.h"
#include "nmt/eval/chrf.h"

namespace nmt::eval {

struct Scores {
  BleuScore bleu;
  ChrfScore chrf;
};

// references[k][i]: k-th reference of line i.
Scores score_corpus(const std::vector<std::string>& hypotheses,
                    const std::vector<std::vector<std::string>>& references);

// Scores a hypothesis file against reference files, one sentence per line (nmt score). Throws
// nmt::Error naming both files when a reference file's line count differs from the hypotheses'.
Scores score_files(const std::string& hypotheses_path,
                   const std::vector<std::string>& reference_paths);

// {"bleu": {"score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "signature"},
//  "chrf": {"score", "signature"}}
nlohmann::json scores_json(const Scores& scores);

// "BLEU = 48.55 84.1/59.1/45.2/37.7 (BP = 0.900 ratio = 0.905 hyp_len = 3230 ref_len = 3571)" and
// "chrF2 = 66.88", each followed by its signature on an indented line.
std::string scores_text(const Scores& scores);

}  // namespace nmt::eval
