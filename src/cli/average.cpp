// nmt average: the mean of several checkpoints' weights as one checkpoint of the run.
#include "nmt/run/average.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "cli/app.h"

namespace nmt::cli {

Command add_average(CLI::App& app) {
  auto* command = app.add_subcommand(
      "average",
      "Write the mean of several checkpoints' weights as one weights-only checkpoint for "
      "translate,\n"
      "eval, serve and export to take with --checkpoint. Training already keeps the mean of its\n"
      "last train.average_last epochs as averaged.pt; this averages other files or counts\n"
      "(train.keep_epochs: N keeps more epochs' weights to choose from).");
  auto request = std::make_shared<run::AverageRequest>();
  command->add_option("-m,--model", request->run_dir, "Run directory (default: runs/latest)");
  auto* files = command->add_option(
      "checkpoints", request->checkpoints,
      "Checkpoints to average: paths, or names of files in the run (epoch-12.pt best.pt)");
  command
      ->add_option("--last", request->last,
                   "Average the run's last N epoch-K.pt files instead (training keeps the last "
                   "max(train.average_last, train.keep_epochs) of them)")
      ->check(CLI::PositiveNumber)
      ->excludes(files);
  command->add_option("-o,--out", request->out, "Checkpoint file to write")->required();
  command->add_flag("--force", request->is_forced, "Replace --out if it exists");
  command->footer(
      "Examples:\n"
      "  nmt average --model runs/latest --last 4 --out runs/latest/mean-4.pt\n"
      "  nmt average --model runs/latest epoch-9.pt epoch-10.pt best.pt --out mean.pt\n"
      "then: nmt eval --model runs/latest --checkpoint mean-4.pt --split valid");
  return {command, [request] {
            const run::AverageReport report = run::average_checkpoints(*request);
            spdlog::info("{}: the mean of {} ({} checkpoints, {} parameters, step {})", report.out,
                         run::file_names(report.inputs, " + "), report.inputs.size(),
                         report.parameters, report.step);
            return 0;
          }};
}

}  // namespace nmt::cli
