// The "serve" section of the configuration: where `nmt serve` listens, how it joins the sentences
// of concurrent requests into decoding batches, and what it refuses. Flags of `nmt serve` override
// each key (--port <-> serve.port). Torch-free; validate() throws ConfigError naming the field.
#pragma once

#include <cstdint>
#include <string>

namespace nmt::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";    // address to bind; "0.0.0.0" listens on every interface
  int64_t port = 8080;               // TCP port; 0 = any free port (the log names it)
  int64_t max_batch = 64;            // sentences decoded together at most
  int64_t max_wait_ms = 0;           // ms the oldest queued sentence waits for others; 0 = none
  int64_t workers = 1;               // batches handed to the model at once
  int64_t http_threads = 64;         // translation requests handled at once (idle ones: none)
  int64_t max_connections = 512;     // open connections at most; a new one closes the longest idle
  int64_t idle_timeout_ms = 5000;    // ms a connection may wait for a request to begin, then closed
  int64_t read_timeout_ms = 10000;   // ms from a request's first byte to its last, then 408
  int64_t max_queue = 2048;          // sentences waiting at most; beyond it 503 with Retry-After
  int64_t timeout_ms = 30000;        // ms a request waits for its translations, then 504
  int64_t max_body_bytes = 1 << 20;  // request body size at most; beyond it 413
  int64_t max_sentences = 128;       // texts, and sentences they are cut into, per request at most
  int64_t max_chars = 5000;          // characters (code points) per text or sentence at most
  int64_t max_beam_size = 16;        // largest beam_size and n_best a request may ask for
  std::string access_log;  // file the access log is appended to; "-": stdout; "" or "off": none

  void validate() const;
};

}  // namespace nmt::serve
