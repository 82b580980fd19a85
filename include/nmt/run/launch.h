// `nmt train --nproc N`: a one-machine launcher in the manner of torchrun. It starts N copies of
// the same command (without --nproc) as ranks 0..N-1 with torchrun's environment (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT a free port),
// forwards SIGINT and SIGTERM to all of them, and waits. When a rank fails, the others get a grace
// period to stop on their own (their next collective fails at once when a rank died), then are
// killed. Says how each rank that did not succeed ended.
#pragma once

#include <string>
#include <vector>

namespace nmt::run {

// arguments: the command line to repeat (argv[1..] of this process, --nproc removed). Returns the
// exit status for the launcher: 0 when every rank succeeded, 130 when they were interrupted and
// none failed otherwise, else 1.
int launch_local_ranks(int ranks, const std::vector<std::string>& arguments);

// Runs this program once more, as a plain process (no rank environment), with arguments and its
// standard output written to stdout_path; SIGINT/SIGTERM are forwarded to it. Returns its exit
// status (128 + the signal when one killed it).
int run_plain_process(const std::vector<std::string>& arguments, const std::string& stdout_path);

// This process's command line (from /proc/self/cmdline) without argv[0] and without --nproc and
// its value.
std::vector<std::string> arguments_without_nproc();

}  // namespace nmt::run
