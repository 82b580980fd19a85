// nmt score: sacreBLEU-compatible BLEU and chrF of a hypothesis file against references.
#include <iostream>
#include <memory>

#include "cli/app.h"
#include "nmt/eval/scores.h"

namespace nmt::cli {
namespace {

struct ScoreArgs {
  std::string hypotheses;
  std::vector<std::string> references;
  bool is_json = false;
};

}  // namespace

Command add_score(CLI::App& app) {
  auto* command = app.add_subcommand(
      "score",
      "Corpus BLEU (13a tokenisation, exponential smoothing) and chrF (character 6-grams, beta 2)\n"
      "of a hypothesis file against one or more reference files, equal to sacreBLEU 2.x.\n"
      "Files are read as UTF-8 text, one sentence per line; line counts must match.");
  auto args = std::make_shared<ScoreArgs>();
  command->add_option("--hyp", args->hypotheses, "Hypotheses, one per line")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--ref", args->references, "Reference file; repeat for several references")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_flag("--json", args->is_json, "Print one JSON object instead of text");
  command->footer(
      "Example: nmt score --hyp output.txt --ref reference.txt --ref reference2.txt --json");
  return {command, [args] {
            const eval::Scores scores = eval::score_files(args->hypotheses, args->references);
            std::cout << (args->is_json ? eval::scores_json(scores).dump(2) + "\n"
                                        : eval::scores_text(scores));
            return 0;
          }};
}

}  // namespace nmt::cli
