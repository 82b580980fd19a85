// nmt score: sacreBLEU-compatible BLEU and chrF of a hypothesis file against references.
#include <iostream>
#include <memory>

#include "cli/app.h"
#include "cli/scores.h"
#include "nmt/error.h"

namespace nmt::cli {
namespace {

struct ScoreArgs {
  std::string hypotheses;
  std::vector<std::string> references;
  bool is_json = false;
};

int run_score(const ScoreArgs& args) {
  const std::vector<std::string> hypotheses = read_text_lines(args.hypotheses);
  std::vector<std::vector<std::string>> references;
  for (const std::string& path : args.references) {
    references.push_back(read_text_lines(path));
    if (references.back().size() != hypotheses.size()) {
      throw Error(args.hypotheses + " has " + std::to_string(hypotheses.size()) + " lines but " + path + " has " +
                  std::to_string(references.back().size()));
    }
  }
  const Scores scores = score_corpus(hypotheses, references);
  if (args.is_json) {
    std::cout << scores_json(scores).dump(2) << '\n';
  } else {
    std::cout << scores_text(scores);
  }
  return 0;
}

}  // namespace

Command add_score(CLI::App& app) {
  auto* command = app.add_subcommand(
      "score",
      "Corpus BLEU (13a tokenisation, exponential smoothing) and chrF (character 6-grams, beta 2)\n"
      "of a hypothesis file against one or more reference files, equal to sacreBLEU 2.x.\n"
      "Files are read as UTF-8 text, one sentence per line; line counts must match.");
  auto args = std::make_shared<ScoreArgs>();
  command->add_option("--hyp", args->hypotheses, "Hypotheses, one per line")->required()->check(CLI::ExistingFile);
  command->add_option("--ref", args->references, "Reference file; repeat for several references")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_flag("--json", args->is_json, "Print one JSON object instead of text");
  command->footer("Example: nmt score --hyp output.txt --ref reference.txt --ref reference2.txt --json");
  return {command, [args] { return run_score(*args); }};
}

}  // namespace nmt::cli
