// The serve section: address, batching, limits. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/serve/options.h"

namespace nmt::serve {

template <class Fields>
void serve_fields(Fields& f, ServeOptions& o) {
  f("host", o.host);
  f("port", o.port, config::IntKind::kNonNegative);
  f("max_batch", o.max_batch, config::IntKind::kPositive);
  f("max_wait_ms", o.max_wait_ms, config::IntKind::kNonNegative);
  f("workers", o.workers, config::IntKind::kPositive);
  f("http_threads", o.http_threads, config::IntKind::kPositive);
  f("max_connections", o.max_connections, config::IntKind::kPositive);
  f("idle_timeout_ms", o.idle_timeout_ms, config::IntKind::kPositive);
  f("read_timeout_ms", o.read_timeout_ms, config::IntKind::kPositive);
  f("max_queue", o.max_queue, config::IntKind::kPositive);
  f("timeout_ms", o.timeout_ms, config::IntKind::kPositive);
  f("max_body_bytes", o.max_body_bytes, config::IntKind::kPositive);
  f("max_sentences", o.max_sentences, config::IntKind::kPositive);
  f("max_chars", o.max_chars, config::IntKind::kPositive);
  f("max_beam_size", o.max_beam_size, config::IntKind::kPositive);
  f("access_log", o.access_log);
}

}  // namespace nmt::serve
