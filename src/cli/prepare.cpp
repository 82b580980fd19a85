// nmt prepare: the data phase of training on its own, to inspect the cleaned splits and
// vocabularies.
#include <memory>

#include "cli/app.h"
#include "cli/config_flags.h"
#include "nmt/run/data_phase.h"

namespace nmt::cli {
namespace {

struct PrepareArgs {
  std::string config_path;
  std::string out_dir;
};

}  // namespace

Command add_prepare(CLI::App& app) {
  auto* command = app.add_subcommand(
      "prepare",
      "Clean, filter and split the corpus and build the vocabularies.\n"
      "Writes OUT/{train,valid,test}.tsv (cleaned pairs), the vocabulary/tokenizer files,\n"
      "OUT/{train,valid}.ids (token ids), OUT/config.json (the resolved configuration) and\n"
      "OUT/prepare.json (counts). `nmt train` with the same configuration and --out OUT trains\n"
      "on them without preparing again.");
  auto args = std::make_shared<PrepareArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  command->add_option("-c,--config", args->config_path, "JSON configuration file (see configs/)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", args->out_dir,
                      "Output directory (default: runs/<config name>-data)");
  flags->add<std::string>("--data", "data.path",
                          "Sentence-pair TSV file (replaces the corpora of data.train)");
  flags->add_set_option();
  flags->add_switch("--reverse", "data.reverse",
                    "Swap the sides: translate the file's second column into its first");
  flags->add<int64_t>("--max-words", "data.max_words",
                      "Drop pairs with more words on a side (0: no limit)");
  flags->add<uint64_t>("--seed", "data.seed", "Split seed");
  command->footer("Example: nmt prepare --config configs/quickstart.json --out /tmp/prepared");
  return {command, [args, flags] {
            const Config config = load_config(args->config_path, flags->overrides());
            const std::string out =
                args->out_dir.empty() ? run::default_data_dir(args->config_path) : args->out_dir;
            run::prepare_run_data(config, args->config_path, RunDir(out));
            return 0;
          }};
}

}  // namespace nmt::cli
