// nmt: neural machine translation trainer. Wires the CLI11 subcommands (src/cli/) and maps
// failures to exit codes: 0 success, 2 usage or configuration error, 1 runtime failure, 130
// interrupted.
#include <c10/util/Exception.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>

#include "cli/app.h"
#include "nmt/cpu_features.h"
#include "nmt/error.h"
#include "nmt/memory.h"
#include "nmt/run/build_info.h"

int main(int argc, char** argv) {
  // OpenBLAS chose its kernels when this process loaded it. Started through `nmt`, the launcher
  // (src/launcher.cpp), this program finds NMT_CPU_ISA's cap and a better kernel set for a CPU
  // OpenBLAS does not know already in its environment; started directly, it applies them in a
  // fresh image of itself with the same arguments, loading LibTorch a second time.
  nmt::bound_onednn_primitive_cache();
  const bool is_capped = nmt::cap_libraries_at_cpu_tier();
  if (is_capped || nmt::raise_openblas_to_cpu(nmt::openblas_core())) {
    execv("/proc/self/exe", argv);
    std::cerr << "nmt: warning: could not restart with OPENBLAS_CORETYPE="
              << std::getenv("OPENBLAS_CORETYPE") << " (" << std::strerror(errno)
              << "); OpenBLAS keeps its own choice\n";
  }
  CLI::App app{
      "nmt: train an encoder-decoder Transformer on sentence pairs, then translate and score.\n"
      "Start with `nmt train --config configs/quickstart.json`; every subcommand has --help."};
  app.set_version_flag(
      "--version", [] { return nmt::run::describe_build(NMT_VERSION); },
      "Print nmt's version, the LibTorch it was built with and its features");
  app.require_subcommand(1);
  nmt::cli::GlobalOptions global;
  nmt::cli::add_global_options(app, global);
  const auto commands = nmt::cli::add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return 2;
  }
  if (nmt::cli::is_parse_only()) {
    std::cerr << "nmt: NMT_PARSE_ONLY=1: the arguments parse; nothing was run\n";
    return 0;
  }
  nmt::cli::setup_process(global);
  try {
    if (const std::string problem = nmt::cpu_tier_problem(); !problem.empty()) {
      throw nmt::ConfigError(problem);
    }
    for (const auto& [subcommand, run] : commands) {
      if (subcommand->parsed()) return run();
    }
  } catch (const nmt::ConfigError& error) {
    std::cerr << "nmt: error: " << error.what() << '\n';
    return 2;
  } catch (const nmt::Interrupted& interrupted) {
    std::cerr << "nmt: " << interrupted.what() << '\n';
    return 130;
  } catch (const c10::Error& error) {
    // LibTorch's message without its stack trace; an allocator's failure as advice.
    const std::string message = error.what_without_backtrace();
    const auto out_of_memory = nmt::describe_out_of_memory(message);
    std::cerr << "nmt: error: " << out_of_memory.value_or(message.substr(0, message.find('\n')))
              << '\n';
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "nmt: error: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
