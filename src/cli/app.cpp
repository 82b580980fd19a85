#include "cli/app.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "nmt/crash_report.h"
#include "nmt/device.h"

namespace nmt::cli {

void add_global_options(CLI::App& app, GlobalOptions& options) {
  auto* quiet = app.add_flag("-q,--quiet", options.is_quiet, "Print warnings and errors only");
  app.add_flag("-v,--verbose", options.is_verbose, "Print debug records too")->excludes(quiet);
}

void setup_process(const GlobalOptions& options) {
  install_crash_report();
  keep_freed_memory();
  auto logger = spdlog::stderr_color_mt("nmt");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  logger->set_level(options.is_quiet     ? spdlog::level::warn
                    : options.is_verbose ? spdlog::level::debug
                                         : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

std::vector<Command> add_commands(CLI::App& app) {
  return {add_prepare(app),   add_train(app),  add_translate(app), add_eval(app),   add_score(app),
          add_attention(app), add_report(app), add_bench(app),     add_export(app), add_serve(app)};
}

}  // namespace nmt::cli
