#include "cli/app.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

#include "nmt/crash_report.h"
#include "nmt/device.h"

namespace nmt::cli {
namespace {

// Switches off CLI11's ExistingFile, ExistingDirectory and ExistingPath checks (described as
// FILE, DIR and PATH(existing)) of app and its subcommands, so that a quoted command line naming
// the reader's own files parses.
void skip_file_checks(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    for (int index = 0;; ++index) {
      CLI::Validator* validator = nullptr;
      try {
        validator = option->get_validator(index);
      } catch (const CLI::OptionNotFound&) {
        break;  // CLI11 has no count of an option's validators
      }
      const std::string kind = validator->get_description();
      if (kind == "FILE" || kind == "DIR" || kind == "PATH(existing)") validator->active(false);
    }
  }
  for (CLI::App* subcommand : app.get_subcommands([](CLI::App*) { return true; })) {
    skip_file_checks(*subcommand);
  }
}

}  // namespace

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
  std::vector<Command> commands = {add_prepare(app),   add_train(app),   add_distil(app),
                                   add_translate(app),
                                   add_eval(app),      add_average(app), add_score(app),
                                   add_attention(app), add_report(app),  add_bench(app),
                                   add_export(app),    add_import(app),  add_serve(app)};
  if (is_parse_only()) skip_file_checks(app);
  return commands;
}

bool is_parse_only() {
  const char* value = std::getenv("NMT_PARSE_ONLY");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace nmt::cli
