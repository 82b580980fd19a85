// The nmt command line: each subcommand lives in its own src/cli/<name>.cpp and exposes one
// add_<name>() that declares its options on the CLI11 app and returns the function that runs it.
// Only cli/ parses argv and writes results to stdout; logs go to stderr through spdlog.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <utility>
#include <vector>

namespace nmt::cli {

// Options that apply to every subcommand.
struct GlobalOptions {
  bool is_quiet = false;    // warnings and errors only
  bool is_verbose = false;  // debug records too
};

// A subcommand and the function that runs it, returning the exit status.
using Command = std::pair<CLI::App*, std::function<int()>>;

void add_global_options(CLI::App& app, GlobalOptions& options);
// Process-wide set-up before a subcommand runs: spdlog's default logger (stderr, level from the
// global options) and the allocator policy (nmt::keep_freed_memory).
void setup_process(const GlobalOptions& options);

// Every subcommand, in the order --help lists them. Under NMT_PARSE_ONLY (is_parse_only) the
// checks that files named by flags exist are switched off.
std::vector<Command> add_commands(CLI::App& app);

// True when the environment sets NMT_PARSE_ONLY=1: nmt parses its command line with every check
// CLI11 makes (flags, values, choices, ranges, arguments) except that files need not exist, then
// exits 0 without running anything. scripts/check-commands.py checks the `nmt ...` lines quoted
// in README.md and docs/ this way (docs/development.md). `--help` cannot: CLI11 2.1 answers it
// before it looks for unknown flags.
bool is_parse_only();

Command add_prepare(CLI::App& app);
Command add_train(CLI::App& app);
Command add_distil(CLI::App& app);
Command add_translate(CLI::App& app);
Command add_eval(CLI::App& app);
Command add_average(CLI::App& app);
Command add_score(CLI::App& app);
Command add_attention(CLI::App& app);
Command add_report(CLI::App& app);
Command add_bench(CLI::App& app);
Command add_export(CLI::App& app);
Command add_import(CLI::App& app);
Command add_serve(CLI::App& app);

// The two halves of `nmt bench`, added under the bench subcommand.
Command add_bench_train(CLI::App& bench);
Command add_bench_translate(CLI::App& bench);

}  // namespace nmt::cli
