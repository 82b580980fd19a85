#include "nmt/serve/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <utility>

#include "nmt/error.h"
#include "nmt/serve/libre_api.h"
#include "nmt/serve/v1_api.h"
#include "nmt/viz/translate_page.h"
#include "serve/api_fields.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

// What the page may do: run its own inline script and style, call this server, nothing else.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

// Idle keep-alive connections hold a thread each and delay the end of a shutdown this long.
constexpr time_t kKeepAliveSeconds = 2;
constexpr std::size_t kKeepAliveRequests = 1000;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump(body), "application/json");
}

void reply_error(httplib::Response& res, const ApiError& error) {
  reply(res, error.status(), {{"error", error.what()}});
  if (error.retry_after_seconds() > 0) {
    res.set_header("Retry-After", std::to_string(error.retry_after_seconds()));
  }
  if (error.status() == 401) res.set_header("WWW-Authenticate", "Bearer");
}

RequestParts parts_of(const httplib::Request& req) {
  RequestParts parts;
  parts.content_type = req.get_header_value("Content-Type");
  parts.body = req.body;
  parts.authorization = req.get_header_value("Authorization");
  for (const auto& [name, value] : req.params) parts.form.emplace_back(name, value);
  for (const auto& [name, field] : req.files) parts.form.emplace_back(name, field.content);
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

bool is_form(const httplib::Request& req) {
  return req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
}

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
        error_id_seed(random_seed()) {}

  void add_routes();
  const Model& ready_model() const;
  std::string internal_error(const httplib::Request& req, const std::string& what);
  std::vector<SentenceResult> translate(const Model& model,
                                        Submission submission,
                                        const httplib::Request& req);
  void translate_libre(const httplib::Request& req, httplib::Response& res);
  void translate_v1(const httplib::Request& req, httplib::Response& res);
  void health(httplib::Response& res) const;
  httplib::Server::HandlerResponse fill_error(const httplib::Request& req, httplib::Response& res);
  httplib::Server::Handler timed(httplib::Server::Handler handler);

  ServeOptions options;
  std::string api_key;
  std::string page;
  ErrorLog error_log;
  uint64_t error_id_seed;  // random: ids differ from one server to the next
  std::atomic<uint64_t> internal_errors{0};
  ServeMetrics metrics;
  httplib::Server http;
  std::unique_ptr<Model> model_owner;  // destroyed before metrics, which its batcher counts into
  std::atomic<const Model*> model{nullptr};
  std::atomic<bool> is_stopping{false};
  std::atomic<bool> has_finished{false};
  std::atomic<int> listening_socket{-1};
  std::thread listener;
};

httplib::Server::Handler Server::Impl::timed(httplib::Server::Handler handler) {
  return [this, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    handler(req, res);
    metrics.count_request(req.path, res.status,
                          std::chrono::duration<double>(Clock::now() - start).count());
  };
}

void Server::Impl::add_routes() {
  http.Get("/", timed([this](const httplib::Request&, httplib::Response& res) {
             res.set_content(page, "text/html; charset=utf-8");
             res.set_header("Content-Security-Policy", kPagePolicy);
           }));
  http.Get("/health",
           timed([this](const httplib::Request&, httplib::Response& res) { health(res); }));
  http.Get("/metrics", timed([this](const httplib::Request&, httplib::Response& res) {
             const Model* loaded = model.load();
             ServeGauges gauges;
             if (loaded) {
               gauges = {loaded->batcher->queued_sentences(),
                         loaded->batcher->queued_requests(),
                         true,
                         loaded->info.source_lang,
                         loaded->info.target_lang,
                         loaded->info.version};
             }
             res.set_content(metrics.render(gauges), "text/plain; version=0.0.4; charset=utf-8");
           }));
  http.Get("/languages", timed([this](const httplib::Request&, httplib::Response& res) {
             try {
               reply(res, 200, libre_languages(ready_model().info));
             } catch (const ApiError& error) {
               reply_error(res, error);
             }
           }));
  http.Post("/translate", timed([this](const httplib::Request& req, httplib::Response& res) {
              translate_libre(req, res);
            }));
  http.Post("/v1/translate", timed([this](const httplib::Request& req, httplib::Response& res) {
              translate_v1(req, res);
            }));
  // CORS preflight: browsers ask before a cross-origin JSON POST (LibreTranslate allows any
  // origin).
  http.Options(R"(/.*)", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        return fill_error(req, res);
      }));
  http.set_exception_handler(
      [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string what = "an exception that is not a std::exception";
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        reply(res, 500, {{"error", internal_error(req, what)}});
        metrics.count_request(req.path, 500, 0.0);
      });
}

// Answers cpp-httplib made itself (no route, body too large, unreadable request) get the API's
// error form; answers of the handlers are left alone.
httplib::Server::HandlerResponse Server::Impl::fill_error(const httplib::Request& req,
                                                          httplib::Response& res) {
  if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
  std::string message;
  switch (res.status) {
    case 404:
      message = "Not Found: " + req.method + " " + req.path;
      break;
    case 413:
      // cpp-httplib refuses form-encoded bodies over 8 KiB whatever the configured limit.
      message = is_form(req) && req.body.size() <= static_cast<std::size_t>(options.max_body_bytes)
                    ? "form-encoded body larger than 8192 bytes (cpp-httplib's limit for forms); "
                      "send JSON instead"
                    : body_too_large(static_cast<std::size_t>(options.max_body_bytes));
      break;
    case 414:
      message = "request URI too long";
      break;
    default:
      message = "Bad request (HTTP " + std::to_string(res.status) + ")";
  }
  reply(res, res.status, {{"error", message}});
  metrics.count_request(req.path, res.status, 0.0);
  return httplib::Server::HandlerResponse::Handled;
}

const Server::Impl::Model& Server::Impl::ready_model() const {
  const Model* loaded = model.load();
  if (!loaded) throw ApiError(503, "the model is still loading", 1);
  return *loaded;
}

// The details (an exception's message may carry a LibTorch stack trace with addresses) go to the
// log under a new id; the client gets the id.
std::string Server::Impl::internal_error(const httplib::Request& req, const std::string& what) {
  char id[17];
  std::snprintf(id, sizeof id, "%016llx",
                static_cast<unsigned long long>(mix(error_id_seed + ++internal_errors)));
  error_log("request " + std::string(id) + ": " + req.method + " " + req.path + ": " + what);
  return "internal error (request " + std::string(id) + "); the server log has the details";
}

std::vector<SentenceResult> Server::Impl::translate(const Model& loaded,
                                                    Submission submission,
                                                    const httplib::Request& req) {
  submission.deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
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
  } catch (const ConfigError& error) {
    throw ApiError(400, error.what());  // decoding options the model refuses
  } catch (const std::exception& error) {
    throw ApiError(500, "Cannot translate text: " + internal_error(req, error.what()));
  }
}

void Server::Impl::translate_libre(const httplib::Request& req, httplib::Response& res) {
  const InFlight in_flight(metrics);
  try {
    const Model& loaded = ready_model();
    const json fields = request_fields(parts_of(req), Api::kLibre, options);
    check_api_key(api_key, fields, req.get_header_value("Authorization"), Api::kLibre);
    const LibreRequest request = libre_request(fields, options, loaded.info);
    const auto results = translate(loaded, {request.lines, request.options, false, {}}, req);
    reply(res, 200, libre_answer(request, results, loaded.info));
  } catch (const ApiError& error) {
    reply_error(res, error);
  }
}

void Server::Impl::translate_v1(const httplib::Request& req, httplib::Response& res) {
  const InFlight in_flight(metrics);
  try {
    const Model& loaded = ready_model();
    const json fields = request_fields(parts_of(req), Api::kV1, options);
    check_api_key(api_key, fields, req.get_header_value("Authorization"), Api::kV1);
    const V1Request request = v1_request(fields, options, loaded.info);
    const auto results =
        translate(loaded, {request.sentences, request.options, request.wants_attention, {}}, req);
    reply(res, 200, v1_answer(request, results, loaded.info));
  } catch (const ApiError& error) {
    reply_error(res, error);
  }
}

void Server::Impl::health(httplib::Response& res) const {
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
  httplib::Server& http = impl_->http;
  const auto threads = static_cast<std::size_t>(options.http_threads);
  // cpp-httplib owns (and deletes) the task queue this returns.
  http.new_task_queue = [threads] {
    return std::make_unique<httplib::ThreadPool>(threads).release();
  };
  // cpp-httplib's default sets SO_REUSEPORT, with which a second server on the port would share
  // its connections; SO_REUSEADDR alone lets a restarted server bind at once and no other.
  http.set_socket_options([&impl = *impl_](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    impl.listening_socket = sock;
  });
  // An answer is written as headers, then body: without TCP_NODELAY the body waits for the
  // client's delayed ACK of the headers (40 ms on Linux) on keep-alive connections.
  http.set_tcp_nodelay(true);
  http.set_payload_max_length(static_cast<std::size_t>(options.max_body_bytes));
  http.set_keep_alive_timeout(kKeepAliveSeconds);
  http.set_keep_alive_max_count(kKeepAliveRequests);
  http.set_default_headers({{"Access-Control-Allow-Origin", "*"},
                            {"Access-Control-Allow-Headers", "Authorization, Content-Type"},
                            {"Access-Control-Allow-Methods", "GET, POST"},
                            {"Access-Control-Max-Age", "86400"}});
  impl_->add_routes();
}

Server::~Server() {
  stop();
  wait();
}

int Server::start() {
  Impl& impl = *impl_;
  const std::string& host = impl.options.host;
  int port = static_cast<int>(impl.options.port);
  if (port == 0) {
    port = impl.http.bind_to_any_port(host);
  } else if (!impl.http.bind_to_port(host, port)) {
    port = -1;
  }
  if (port < 0) {
    throw Error("serve: cannot listen on " + host + ":" + std::to_string(impl.options.port) +
                " (is the address valid and the port free? --port 0 picks a free one)");
  }
  // Debian's cpp-httplib is built with a listen backlog of 5: a burst of more connections than
  // that while the accepting thread waits for a core leaves clients in SYN retransmission (1 s and
  // more) or reset. Listening again on the bound socket raises the backlog to the system's limit.
  if (::listen(impl.listening_socket, SOMAXCONN) != 0) {
    throw Error("serve: cannot listen on " + host + ":" + std::to_string(port) + ": " +
                std::strerror(errno));
  }
  impl.listener = std::thread([&impl] {
    impl.http.listen_after_bind();
    impl.has_finished = true;
  });
  while (!impl.http.is_running() && !impl.has_finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port;
}

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
  impl_->http.stop();
}

void Server::wait() {
  if (impl_->listener.joinable()) impl_->listener.join();
}

}  // namespace nmt::serve
