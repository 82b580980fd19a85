#include "nmt/serve/server.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>

#include "nmt/error.h"
#include "nmt/serve/libre_api.h"
#include "nmt/serve/v1_api.h"
#include "nmt/viz/translate_page.h"
#include "serve/access_log.h"
#include "serve/api_fields.h"
#include "serve/form.h"
#include "serve/http_server.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

// What the page may do: run its own inline script and style, call this server, nothing else.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

void reply(http::Response& res, int status, const json& body) {
  res.status = status;
  res.content_type = "application/json";
  res.body = dump(body);
}

void reply_error(http::Response& res, const ApiError& error) {
  reply(res, error.status(), {{"error", error.what()}});
  if (error.retry_after_seconds() > 0) {
    res.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds()));
  }
  if (error.status() == 401) res.headers.emplace_back("WWW-Authenticate", "Bearer");
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// The query's fields, then the body's when it is a form (as LibreTranslate reads them).
RequestParts parts_of(const http::Request& req) {
  RequestParts parts;
  parts.content_type = req.header("Content-Type");
  parts.body = req.body;
  parts.authorization = req.header("Authorization");
  parts.form = url_encoded_fields(req.query);
  const std::string media_type = lower(parts.content_type);
  FormFields body_fields;
  if (starts_with(media_type, "application/x-www-form-urlencoded")) {
    body_fields = url_encoded_fields(req.body);
  } else if (starts_with(media_type, "multipart/form-data")) {
    body_fields = multipart_fields(req.body, parts.content_type);
  }
  parts.form.insert(parts.form.end(), body_fields.begin(), body_fields.end());
  return parts;
}

// A translation request being handled, for the in-flight gauge, however it ends.
class InFlight {
 public:
  explicit InFlight(ServeMetrics& metrics) : metrics_(metrics) { metrics_.request_started(); }
  ~InFlight() { metrics_.request_finished(); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  ServeMetrics& metrics_;
};

// SplitMix64's finaliser (Steele et al. 2014): a bijection, so distinct counts give distinct ids.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t random_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// nginx's status for a request whose client closed the connection first: never sent, but counted
// in the metrics and written to the access log.
constexpr int kClientClosedRequest = 499;

void log_to_stderr(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

}  // namespace

struct Server::Impl {
  // The model and its queue, published once by set_model.
  struct Model {
    ModelInfo info;
    std::unique_ptr<Batcher> batcher;
  };

  Impl(const ServeOptions& serve_options, std::string key, ErrorLog log)
      : options(serve_options),
        api_key(std::move(key)),
        page(viz::render_translate_page(
            {!api_key.empty(), options.max_sentences, options.max_chars, options.max_beam_size})),
        error_log(log ? std::move(log) : ErrorLog(log_to_stderr)),
        error_id_seed(random_seed()),
        http_server(
            limits_of(serve_options),
            [this](const http::Request& req, const std::string& message, http::Response& res) {
              reply(res, res.status, {{"error", message}});
              metrics.count_request(req.path, res.status, 0.0);
            }) {}

  static http::Limits limits_of(const ServeOptions& options);
  void add_routes();
  const Model& ready_model() const;
  std::string internal_error(const http::Request& req, const std::string& what);
  std::vector<SentenceResult> translate(const Model& model,
                                        Submission submission,
                                        const http::Request& req);
  void translate_libre(const http::Request& req, http::Response& res);
  void translate_v1(const http::Request& req, http::Response& res);
  void health(http::Response& res) const;
  void metrics_page(http::Response& res) const;
  http::Handler timed(http::Handler handler);

  ServeOptions options;
  std::string api_key;
  std::string page;
  ErrorLog error_log;
  uint64_t error_id_seed;  // random: ids differ from one server to the next
  std::atomic<uint64_t> internal_errors{0};
  ServeMetrics metrics;
  std::unique_ptr<AccessLog> access_log;  // outlives the HTTP server, which writes to it
  http::HttpServer http_server;
  std::unique_ptr<Model> model_owner;  // destroyed before metrics, which its batcher counts into
  std::atomic<const Model*> model{nullptr};
  std::atomic<bool> is_stopping{false};
};

http::Limits Server::Impl::limits_of(const ServeOptions& options) {
  http::Limits limits;
  limits.max_body_bytes = options.max_body_bytes;
  limits.max_connections = options.max_connections;
  limits.worker_threads = options.http_threads;
  limits.idle_timeout = std::chrono::milliseconds(options.idle_timeout_ms);
  limits.read_timeout = std::chrono::milliseconds(options.read_timeout_ms);
  return limits;
}

// Times every answer into the metrics; an exception a handler lets through is an internal error.
http::Handler Server::Impl::timed(http::Handler handler) {
  return [this, handler = std::move(handler)](const http::Request& req, http::Response& res) {
    const auto start = Clock::now();
    try {
      handler(req, res);
    } catch (const std::exception& error) {
      res = http::Response{};
      reply(res, 500, {{"error", internal_error(req, error.what())}});
    }
    metrics.count_request(req.path, res.status,
                          std::chrono::duration<double>(Clock::now() - start).count());
  };
}

void Server::Impl::add_routes() {
  using http::Dispatch;
  http_server.route("GET", "/", Dispatch::kQuick,
                    timed([this](const http::Request&, http::Response& res) {
                      res.content_type = "text/html; charset=utf-8";
                      res.body = page;
                      res.headers.emplace_back("Content-Security-Policy", kPagePolicy);
                    }));
  http_server.route("GET", "/health", Dispatch::kQuick,
                    timed([this](const http::Request&, http::Response& res) { health(res); }));
  http_server.route(
      "GET", "/metrics", Dispatch::kQuick,
      timed([this](const http::Request&, http::Response& res) { metrics_page(res); }));
  http_server.route("GET", "/languages", Dispatch::kQuick,
                    timed([this](const http::Request&, http::Response& res) {
                      try {
                        reply(res, 200, libre_languages(ready_model().info));
                      } catch (const ApiError& error) {
                        reply_error(res, error);
                      }
                    }));
  // Translations wait for the batcher: on the worker threads.
  http_server.route(
      "POST", "/translate", Dispatch::kWorker,
      timed([this](const http::Request& req, http::Response& res) { translate_libre(req, res); }));
  http_server.route(
      "POST", "/v1/translate", Dispatch::kWorker,
      timed([this](const http::Request& req, http::Response& res) { translate_v1(req, res); }));
  // CORS preflight: browsers ask before a cross-origin JSON POST (LibreTranslate allows any
  // origin).
  http_server.route("OPTIONS", "*", Dispatch::kQuick,
                    [](const http::Request&, http::Response& res) { res.status = 204; });
}

void Server::Impl::metrics_page(http::Response& res) const {
  const Model* loaded = model.load();
  ServeGauges gauges;
  gauges.open_connections = http_server.open_connections();
  if (loaded) {
    gauges.queue_sentences = loaded->batcher->queued_sentences();
    gauges.queue_requests = loaded->batcher->queued_requests();
    gauges.is_model_ready = true;
    gauges.source_lang = loaded->info.source_lang;
    gauges.target_lang = loaded->info.target_lang;
    gauges.version = loaded->info.version;
  }
  res.content_type = "text/plain; version=0.0.4; charset=utf-8";
  res.body = metrics.render(gauges);
}

const Server::Impl::Model& Server::Impl::ready_model() const {
  const Model* loaded = model.load();
  if (!loaded) throw ApiError(503, "the model is still loading", 1);
  return *loaded;
}

// The details (an exception's message may carry a LibTorch stack trace with addresses) go to the
// log under a new id; the client gets the id.
std::string Server::Impl::internal_error(const http::Request& req, const std::string& what) {
  char id[17];
  std::snprintf(id, sizeof id, "%016llx",
                static_cast<unsigned long long>(mix(error_id_seed + ++internal_errors)));
  error_log("request " + std::string(id) + ": " + req.method + " " + req.path + ": " + what);
  return "internal error (request " + std::string(id) + "); the server log has the details";
}

std::vector<SentenceResult> Server::Impl::translate(const Model& loaded,
                                                    Submission submission,
                                                    const http::Request& req) {
  submission.deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  submission.abandoned = req.client_left;
  const Clock::time_point deadline = submission.deadline;
  std::future<std::vector<SentenceResult>> future;
  try {
    future = loaded.batcher->submit(std::move(submission));
  } catch (const Busy& busy) {
    throw ApiError(503, busy.what(), busy.retry_after_seconds());
  }
  const std::string late = "Translation did not finish within serve.timeout_ms (" +
                           std::to_string(options.timeout_ms) + " ms)";
  if (future.wait_until(deadline) == std::future_status::timeout) throw ApiError(504, late);
  try {
    return future.get();
  } catch (const TimedOut&) {
    throw ApiError(504, late);
  } catch (const ClientLeft& left) {
    throw ApiError(kClientClosedRequest, left.what());
  } catch (const ConfigError& error) {
    throw ApiError(400, error.what());  // decoding options the model refuses
  } catch (const std::exception& error) {
    throw ApiError(500, "Cannot translate text: " + internal_error(req, error.what()));
  }
}

void Server::Impl::translate_libre(const http::Request& req, http::Response& res) {
  const InFlight in_flight(metrics);
  try {
    const Model& loaded = ready_model();
    const json fields = request_fields(parts_of(req), Api::kLibre, options);
    check_api_key(api_key, fields, req.header("Authorization"), Api::kLibre);
    const LibreRequest request = libre_request(fields, options, loaded.info);
    auto results = translate(loaded, {request.texts.sentences(), request.options, false, {}, {}}, req);
    reply(res, 200,
          libre_answer(request, join_texts(request.texts, std::move(results)), loaded.info));
    res.sentences = request.texts.sentences().size();
  } catch (const ApiError& error) {
    reply_error(res, error);
  }
}

void Server::Impl::translate_v1(const http::Request& req, http::Response& res) {
  const InFlight in_flight(metrics);
  try {
    const Model& loaded = ready_model();
    const json fields = request_fields(parts_of(req), Api::kV1, options);
    check_api_key(api_key, fields, req.header("Authorization"), Api::kV1);
    const V1Request request = v1_request(fields, options, loaded.info);
    auto results = translate(
        loaded, {request.texts.sentences(), request.options, request.wants_attention, {}, {}}, req);
    reply(res, 200, v1_answer(request, join_texts(request.texts, std::move(results)), loaded.info));
    res.sentences = request.texts.sentences().size();
  } catch (const ApiError& error) {
    reply_error(res, error);
  }
}

void Server::Impl::health(http::Response& res) const {
  const Model* loaded = model.load();
  const char* status = is_stopping ? "stopping" : loaded ? "ok" : "loading";
  json body = {{"status", status}, {"model", loaded ? model_json(loaded->info) : json()}};
  if (loaded) {
    body["queue"] = {{"sentences", loaded->batcher->queued_sentences()},
                     {"requests", loaded->batcher->queued_requests()}};
  }
  reply(res, loaded && !is_stopping ? 200 : 503, body);
}

Server::Server(const ServeOptions& options, std::string api_key, ErrorLog error_log)
    : impl_(std::make_unique<Impl>(options, std::move(api_key), std::move(error_log))) {
  options.validate();
  impl_->http_server.set_default_headers(
      {{"Access-Control-Allow-Origin", "*"},
       {"Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id"},
       {"Access-Control-Expose-Headers", "X-Request-Id"},
       {"Access-Control-Allow-Methods", "GET, POST"},
       {"Access-Control-Max-Age", "86400"}});
  impl_->add_routes();
  if (!options.access_log.empty() && options.access_log != "off") {
    impl_->access_log = std::make_unique<AccessLog>(options.access_log);
    impl_->http_server.set_access_logger(
        [log = impl_->access_log.get()](const http::AccessRecord& record) { log->write(record); });
  }
}

Server::~Server() {
  stop();
  wait();
}

int Server::start() {
  return impl_->http_server.listen(impl_->options.host, static_cast<int>(impl_->options.port));
}

int64_t Server::max_connections() const { return impl_->http_server.max_connections(); }

void Server::set_model(const ModelInfo& model, TranslateFn translate) {
  if (impl_->model_owner) throw Error("serve: the model is already set");
  auto loaded = std::make_unique<Impl::Model>();
  loaded->info = model;
  loaded->batcher = std::make_unique<Batcher>(impl_->options, std::move(translate), impl_->metrics);
  if (impl_->is_stopping) loaded->batcher->hurry();
  impl_->model_owner = std::move(loaded);
  impl_->model = impl_->model_owner.get();
}

void Server::stop() {
  impl_->is_stopping = true;
  if (const Impl::Model* loaded = impl_->model.load()) loaded->batcher->hurry();
  impl_->http_server.stop();
}

void Server::wait() { impl_->http_server.wait(); }

}  // namespace nmt::serve
