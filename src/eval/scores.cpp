#include "nmt/eval/scores.h"

#include <fmt/format.h>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::eval {

Scores score_corpus(const std::vector<std::string>& hypotheses,
                    const std::vector<std::vector<std::string>>& references) {
  return {corpus_bleu(hypotheses, references), corpus_chrf(hypotheses, references)};
}

Scores score_files(const std::string& hypotheses_path,
                   const std::vector<std::string>& reference_paths) {
  const std::vector<std::string> hypotheses = read_lines(hypotheses_path);
  std::vector<std::vector<std::string>> references;
  for (const std::string& path : reference_paths) {
    references.push_back(read_lines(path));
    if (references.back().size() != hypotheses.size()) {
      throw Error(hypotheses_path + " has " + std::to_string(hypotheses.size()) + " lines but " +
                  path + " has " + std::to_string(references.back().size()));
    }
  }
  return score_corpus(hypotheses, references);
}

nlohmann::json scores_json(const Scores& scores) {
  const BleuScore& b = scores.bleu;
  return {{"bleu",
           {{"score", b.score},
            {"counts", b.counts},
            {"totals", b.totals},
            {"precisions", b.precisions},
            {"bp", b.bp},
            {"sys_len", b.sys_len},
            {"ref_len", b.ref_len},
            {"signature", b.signature}}},
          {"chrf", {{"score", scores.chrf.score}, {"signature", scores.chrf.signature}}}};
}

std::string scores_text(const Scores& scores) {
  const BleuScore& b = scores.bleu;
  const double ratio =
      b.ref_len > 0 ? static_cast<double>(b.sys_len) / static_cast<double>(b.ref_len) : 0.0;
  return fmt::format(
      "BLEU = {:.2f} {:.1f}/{:.1f}/{:.1f}/{:.1f} (BP = {:.3f} ratio = {:.3f} hyp_len = {} "
      "ref_len = {})\n"
      "  {}\n"
      "chrF2 = {:.2f}\n"
      "  {}\n",
      b.score, b.precisions[0], b.precisions[1], b.precisions[2], b.precisions[3], b.bp, ratio,
      b.sys_len, b.ref_len, b.signature, scores.chrf.score, scores.chrf.signature);
}

}  // namespace nmt::eval
