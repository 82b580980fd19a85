#include "cli/scores.h"

#include <fmt/format.h>

#include "nmt/io.h"

namespace nmt::cli {

Scores score_corpus(const std::vector<std::string>& hypotheses, const std::vector<std::vector<std::string>>& references) {
  return {eval::corpus_bleu(hypotheses, references), eval::corpus_chrf(hypotheses, references)};
}

nlohmann::json scores_json(const Scores& scores) {
  const eval::BleuScore& b = scores.bleu;
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
  const eval::BleuScore& b = scores.bleu;
  const double ratio = b.ref_len > 0 ? static_cast<double>(b.sys_len) / static_cast<double>(b.ref_len) : 0.0;
  return fmt::format(
      "BLEU = {:.2f} {:.1f}/{:.1f}/{:.1f}/{:.1f} (BP = {:.3f} ratio = {:.3f} hyp_len = {} ref_len = {})\n"
      "  {}\n"
      "chrF2 = {:.2f}\n"
      "  {}\n",
      b.score, b.precisions[0], b.precisions[1], b.precisions[2], b.precisions[3], b.bp, ratio, b.sys_len, b.ref_len,
      b.signature, scores.chrf.score, scores.chrf.signature);
}

std::vector<std::string> read_text_lines(const std::string& path) { return read_lines(path); }

}  // namespace nmt::cli
