#include "nmt/serve/options.h"

#include "nmt/check.h"
#include "nmt/error.h"

namespace nmt::serve {

void ServeOptions::validate() const {
  if (host.empty())
    throw ConfigError("host", "expected an address such as \"127.0.0.1\", got \"\"");
  if (port < 0 || port > 65535) {
    throw ConfigError("port", "expected a TCP port from 0 to 65535, got " + std::to_string(port));
  }
  check::positive("max_batch", max_batch);
  check::non_negative("max_wait_ms", max_wait_ms);
  check::positive("workers", workers);
  check::positive("http_threads", http_threads);
  check::positive("max_connections", max_connections);
  check::positive("idle_timeout_ms", idle_timeout_ms);
  check::positive("read_timeout_ms", read_timeout_ms);
  check::positive("max_queue", max_queue);
  check::positive("timeout_ms", timeout_ms);
  check::positive("max_body_bytes", max_body_bytes);
  check::positive("max_sentences", max_sentences);
  check::positive("max_chars", max_chars);
  check::positive("max_beam_size", max_beam_size);
  check::file_name("access_log", access_log);
  // A request that can never fit the queue would be refused as "busy" forever.
  if (max_queue < max_sentences) {
    throw ConfigError("max_queue", "expected at least max_sentences (" +
                                       std::to_string(max_sentences) + "), got " +
                                       std::to_string(max_queue));
  }
}

}  // namespace nmt::serve
