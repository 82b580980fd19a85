// nmt report: a run's training curves, configuration and evaluations as one self-contained HTML
// page.
#include "nmt/run/report.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "cli/app.h"
#include "nmt/run/open_run.h"

namespace nmt::cli {
namespace {

struct ReportArgs {
  std::string run_dir;
  std::string out_path;
};

}  // namespace

Command add_report(CLI::App& app) {
  auto* command = app.add_subcommand(
      "report",
      "Draw a run's training and validation loss (and BLEU from `nmt eval`, when present) against\n"
      "steps and training time, with its configuration and evaluations, as one self-contained "
      "HTML\n"
      "page. `nmt train` also writes RUN/report.html when it ends.");
  auto args = std::make_shared<ReportArgs>();
  command->add_option("-m,--model", args->run_dir, "Run directory (default: runs/latest)");
  command->add_option("-o,--out", args->out_path, "HTML file to write (default: RUN/report.html)");
  command->footer("Example: nmt report --model runs/latest --out report.html");
  return {command, [args] {
            const RunDir run = run::resolve_run_dir(args->run_dir);
            const std::string out = args->out_path.empty() ? run.report() : args->out_path;
            run::write_report(run, out);
            spdlog::info("report of {} written to {}", run.path(), out);
            return 0;
          }};
}

}  // namespace nmt::cli
