// Scoring output shared by `nmt eval` and `nmt score`: sacreBLEU-style lines for people and one
// JSON object with stable keys for programs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nmt/eval/bleu.h"
#include "nmt/eval/chrf.h"

namespace nmt::cli {

struct Scores {
  eval::BleuScore bleu;
  eval::ChrfScore chrf;
};

// references[k][i]: k-th reference of line i. Throws nmt::Error on mismatched line counts.
Scores score_corpus(const std::vector<std::string>& hypotheses, const std::vector<std::vector<std::string>>& references);

// {"bleu": {"score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "signature"},
//  "chrf": {"score", "signature"}}
nlohmann::json scores_json(const Scores& scores);

// "BLEU = 48.55 84.1/59.1/45.2/37.7 (BP = 0.900 ratio = 0.905 hyp_len = 3230 ref_len = 3571)" and
// "chrF2 = 66.88", each followed by its signature.
std::string scores_text(const Scores& scores);

// Reads a text file as lines; throws nmt::Error naming the file.
std::vector<std::string> read_text_lines(const std::string& path);

}  // namespace nmt::cli
