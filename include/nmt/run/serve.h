// `nmt serve` as a library call: a trained run served over HTTP (serve/server.h) with dynamic
// batching (serve/batcher.h) until SIGINT or SIGTERM.
//
// The server listens first and answers "loading" while the run's weights load, then translates
// every batch with one decode::Translator over the one model in memory. Translator::translate
// must not run twice at once on one model (each call switches the model's weights into the
// decoding number format and back, and may grow its position table), so batches reach it one at
// a time whatever serve.workers says; the Translator spreads a batch over the CPU threads itself.
//
// Logs (spdlog) where it listens, when it is ready and when it stops. Throws like open_run
// (ConfigError for a bad run or option), and nmt::Error when it cannot listen.
#pragma once

#include <string>
#include <vector>

#include "nmt/run/config.h"
#include "nmt/run/open_run.h"

namespace nmt::run {

struct ServeRequest {
  RunRequest model;
  std::string api_key;  // the key requests must carry; "" = none
};

// Serves until SIGINT or SIGTERM; then stops accepting connections, answers every request it
// accepted (queued sentences included) and returns.
void serve(const ServeRequest& request, const ConfigOverrides& overrides);

// The weights' version the server reports: the CRC-32 of the files' bytes, 8 hex digits.
std::string weights_version(const std::vector<std::string>& paths);

}  // namespace nmt::run
