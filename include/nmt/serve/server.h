// The HTTP side of `nmt serve`, on the HTTP layer of src/serve/http_server.h (Boost.Beast): routes,
// API keys, CORS, the page, and the answers of api.h; framing, limits, deadlines and the bound on
// connections are the layer's (docs/serving.md#on-a-network). Requests wait for their translations
// in a Batcher over the TranslateFn given by set_model; until then the translation endpoints and
// /health answer 503 ("loading").
//
//   GET  /               the page (viz/translate_page.h)     POST /translate     LibreTranslate's
//   GET  /languages      LibreTranslate's                    POST /v1/translate  nmt's own
//   GET  /health         {"status": "ok" | "loading" | "stopping", "model": ..., "queue": ...}
//   GET  /metrics        Prometheus text (prometheus_metrics.h)
//
// Every request gets an answer: errors are {"error": message} with 400 (bad input, naming the
// limit; bad framing), 401/403 (API key), 404, 408 (serve.read_timeout_ms), 413 (body over
// serve.max_body_bytes), 415 (compressed body), 431, 500, 501, 503 with Retry-After (queue full,
// loading, every connection busy) or 504 (serve.timeout_ms). A 500 (an internal error: anything
// but a refused request, e.g. the model throwing) tells the client only an id, "internal error
// (request 3f2a9c0d1e2b4a5f); the server log has the details"; its exception's message goes to
// the ErrorLog with that id. Torch-free; throws nmt::Error when it cannot listen; logs only through
// the ErrorLog.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "nmt/serve/api.h"
#include "nmt/serve/batcher.h"
#include "nmt/serve/options.h"

namespace nmt::serve {

// Takes one line per internal error: "request <id>: <method> <path>: <what()>". Called from the
// server's threads, several at once.
using ErrorLog = std::function<void(const std::string& line)>;

class Server {
 public:
  // api_key: the key requests must carry; "" = none. error_log: where internal errors go; none =
  // standard error.
  Server(const ServeOptions& options, std::string api_key, ErrorLog error_log = {});
  // stop(), then wait(); queued sentences are still translated before it returns.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds options.host:options.port (port 0: any free port) and accepts connections in a thread
  // of its own; returns the port once connections are accepted. Throws nmt::Error when it cannot
  // bind.
  int start();

  // serve.max_connections, or fewer where the process's open-file limit leaves fewer sockets.
  int64_t max_connections() const;

  // The model from now on (once): its description and the function that translates a batch.
  void set_model(const ModelInfo& model, TranslateFn translate);

  // Stops accepting connections; queued sentences leave in batches at once. Returns at once;
  // thread-safe.
  void stop();

  // Returns once the server has stopped and every request it accepted has been answered.
  void wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt::serve
