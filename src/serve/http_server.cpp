// Beast's strings as std::string_view (Boost 1.74 defaults to boost::string_view).
#define BOOST_BEAST_USE_STD_STRING_VIEW

#include "serve/http_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

#include "nmt/error.h"
#include "serve/api_fields.h"

namespace nmt::serve::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace wire = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

// How long a closing connection reads what its client still sends, so that the client reads our
// answer before the kernel resets the connection over unread bytes.
constexpr std::chrono::milliseconds kLingerTime{1000};
constexpr std::size_t kLingerBytes = 1 << 20;

std::string trimmed_lower(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return lower(std::string(text.substr(first, last - first + 1)));
}

std::string milliseconds_text(std::chrono::milliseconds time) {
  return std::to_string(time.count()) + " ms";
}

// Enough open files for max_connections sockets: the soft limit is often 1024 where the hard one
// allows far more.
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

std::string Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, name)) return value;
  }
  return "";
}

class Session;

struct Route {
  std::string method;
  std::string path;
  Dispatch dispatch;
  Handler handler;
};

struct ServerState {
  ServerState(const Limits& server_limits, RefusalWriter writer)
      : limits(server_limits),
        refusal_writer(std::move(writer)),
        workers(static_cast<std::size_t>(server_limits.worker_threads)) {}

  const Route* find_route(const std::string& method, const std::string& path) const;
  void accept();
  void admit(tcp::socket socket);
  std::shared_ptr<Session> eviction_candidate();
  void refuse_connection(tcp::socket& socket);
  void close_waiting_sessions();

  const Limits limits;
  const RefusalWriter refusal_writer;
  std::vector<Route> routes;
  Fields default_headers;
  std::atomic<bool> stopping{false};
  // Declared before io: handlers the io_context destroys unrun release sessions, which leave this
  // list as they go.
  std::mutex sessions_mutex;
  std::list<Session*> sessions;
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer accept_retry{io};
  net::thread_pool workers;
  std::thread network;
};

// One connection, driven by the network thread: wait for a request, read it, hand it to its
// handler, write the answer, and again.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class State { kIdle, kReading, kHandling, kWriting, kClosing };

  Session(tcp::socket socket, ServerState& server)
      : socket_(std::move(socket)), server_(server), deadline_(server.io) {
    const std::lock_guard lock(server_.sessions_mutex);
    place_ = server_.sessions.insert(server_.sessions.end(), this);
  }
  ~Session() {
    const std::lock_guard lock(server_.sessions_mutex);
    server_.sessions.erase(place_);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() { next_request(); }
  // Network thread only.
  void close() {
    error_code ignored;
    socket_.close(ignored);
    deadline_.cancel();
  }
  State state() const { return state_; }
  Clock::time_point state_since() const { return state_since_; }

 private:
  void enter(State state) {
    state_ = state;
    state_since_ = Clock::now();
  }
  void arm(std::chrono::milliseconds timeout);
  void on_deadline();
  void next_request();
  void wait_idle();
  void read_head();
  void on_head(error_code error);
  void read_body();
  void on_body(error_code error);
  void on_read_error(error_code error);
  void dispatch();
  void run_handler(const Route& route, Response& response) const;
  void refuse(int status, const std::string& message);
  void write(Response response, bool keep_alive);
  void linger_close();
  void drain();

  tcp::socket socket_;
  ServerState& server_;
  std::list<Session*>::iterator place_;
  net::steady_timer deadline_;
  bool deadline_passed_ = false;
  State state_ = State::kIdle;
  Clock::time_point state_since_ = Clock::now();
  beast::flat_buffer buffer_;
  std::optional<wire::request_parser<wire::string_body>> parser_;
  Request request_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  std::size_t drained_ = 0;
};

void Session::arm(std::chrono::milliseconds timeout) {
  deadline_passed_ = false;
  deadline_.expires_after(timeout);
  deadline_.async_wait([weak = weak_from_this()](error_code error) {
    if (error) return;  // cancelled or re-armed
    if (auto self = weak.lock()) self->on_deadline();
  });
}

void Session::on_deadline() {
  deadline_passed_ = true;
  error_code ignored;
  if (state_ == State::kIdle || state_ == State::kReading) {
    socket_.cancel(ignored);  // the pending read ends; on_read_error answers 408 where due
  } else if (state_ == State::kWriting || state_ == State::kClosing) {
    socket_.close(ignored);  // a client that does not read its answer
  }
}

void Session::next_request() {
  if (server_.stopping) {
    linger_close();
  } else if (buffer_.size() > 0) {
    read_head();  // pipelined: the next request is already here
  } else {
    wait_idle();
  }
}

void Session::wait_idle() {
  enter(State::kIdle);
  buffer_.shrink_to_fit();  // a thousand idle connections hold no buffers
  arm(server_.limits.idle_timeout);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code error) {
    if (error || !self->socket_.is_open()) {
      self->close();
      return;
    }
    self->read_head();
  });
}

void Session::read_head() {
  enter(State::kReading);
  arm(server_.limits.read_timeout);
  request_ = Request{};
  version_ = 11;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(kMaxHeadBytes));
  parser_->body_limit(static_cast<std::uint64_t>(server_.limits.max_body_bytes));
  wire::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code error, std::size_t) { self->on_head(error); });
}

void Session::on_head(error_code error) {
  if (error) return on_read_error(error);
  const auto& head = parser_->get();
  version_ = head.version();
  request_.method = std::string(head.method_string());
  const std::string_view target = head.target();
  const auto question = target.find('?');
  request_.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) request_.query = std::string(target.substr(question + 1));
  for (const auto& field : head) {
    request_.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  // Beast reads no body for a request whose last transfer coding is not chunked, and would pass
  // on a chunked body still gzip-coded.
  const auto coding = head.find(wire::field::transfer_encoding);
  if (coding != head.end() && trimmed_lower(coding->value()) != "chunked") {
    return refuse(501, "Transfer-Encoding \"" + std::string(coding->value()) +
                           "\" is not supported: send the body with Content-Length or chunked");
  }
  const auto encoding = head.find(wire::field::content_encoding);
  if (encoding != head.end() && trimmed_lower(encoding->value()) != "identity") {
    return refuse(415, "Content-Encoding \"" + std::string(encoding->value()) +
                           "\" is not accepted: send the body uncompressed");
  }
  if (trimmed_lower(head[wire::field::expect]) == "100-continue" && !parser_->is_done()) {
    auto proceed =
        std::make_shared<wire::response<wire::empty_body>>(wire::status::continue_, version_);
    wire::async_write(socket_, *proceed,
                      [self = shared_from_this(), proceed](error_code write_error, std::size_t) {
                        if (write_error) return self->close();
                        self->read_body();
                      });
    return;
  }
  read_body();
}

void Session::read_body() {
  if (parser_->is_done()) return on_body({});
  wire::async_read(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code error, std::size_t) { self->on_body(error); });
}

void Session::on_body(error_code error) {
  if (error) return on_read_error(error);
  request_.body = std::move(parser_->get().body());
  keep_alive_ = parser_->get().keep_alive();
  parser_.reset();
  dispatch();
}

void Session::on_read_error(error_code error) {
  if (!socket_.is_open()) return;  // closed for stop() or to make room
  if (deadline_passed_) {
    return refuse(408, "request not received within serve.read_timeout_ms (" +
                           milliseconds_text(server_.limits.read_timeout) + ")");
  }
  if (error == wire::error::body_limit) {
    return refuse(413, body_too_large(static_cast<std::size_t>(server_.limits.max_body_bytes)));
  }
  if (error == wire::error::header_limit) {
    return refuse(431, "request head larger than " + std::to_string(kMaxHeadBytes) + " bytes");
  }
  const bool client_left = error == wire::error::end_of_stream ||
                           error == wire::error::partial_message || error == net::error::eof ||
                           error == net::error::connection_reset ||
                           error == net::error::operation_aborted;
  if (client_left) return close();
  refuse(400, "Bad request: " + error.message());
}

void Session::dispatch() {
  deadline_.cancel();
  enter(State::kHandling);
  const Route* route = server_.find_route(request_.method, request_.path);
  if (!route) {
    Response response;
    response.status = 404;
    server_.refusal_writer(request_, "Not Found: " + request_.method + " " + request_.path,
                           response);
    return write(std::move(response), keep_alive_);
  }
  if (route->dispatch == Dispatch::kQuick) {
    Response response;
    run_handler(*route, response);
    return write(std::move(response), keep_alive_);
  }
  // The guard keeps the network thread running while no socket of this session is waited on.
  net::post(server_.workers,
            [self = shared_from_this(), route, guard = net::make_work_guard(server_.io)]() mutable {
              Response response;
              self->run_handler(*route, response);
              net::post(self->server_.io, [self, response = std::move(response)]() mutable {
                self->write(std::move(response), self->keep_alive_);
              });
            });
}

// Handlers answer their own errors; this only keeps one that throws from ending the process.
void Session::run_handler(const Route& route, Response& response) const {
  try {
    route.handler(request_, response);
  } catch (const std::exception&) {
    response = Response{};
    response.status = 500;
    server_.refusal_writer(request_, "internal error", response);
  }
}

void Session::refuse(int status, const std::string& message) {
  Response response;
  response.status = status;
  server_.refusal_writer(request_, message, response);
  write(std::move(response), false);
}

void Session::write(Response response, bool keep_alive) {
  enter(State::kWriting);
  if (server_.stopping) keep_alive = false;
  auto answer = std::make_shared<wire::response<wire::string_body>>(
      static_cast<wire::status>(response.status), version_);
  for (const auto& [name, value] : server_.default_headers) answer->set(name, value);
  for (const auto& [name, value] : response.headers) answer->set(name, value);
  if (!response.content_type.empty()) answer->set(wire::field::content_type, response.content_type);
  answer->body() = std::move(response.body);
  answer->keep_alive(keep_alive);
  answer->prepare_payload();
  arm(server_.limits.read_timeout);
  wire::async_write(socket_, *answer,
                    [self = shared_from_this(), answer, keep_alive](error_code error, std::size_t) {
                      self->deadline_.cancel();
                      if (error) return self->close();
                      if (!keep_alive) return self->linger_close();
                      self->next_request();
                    });
}

void Session::linger_close() {
  enter(State::kClosing);
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  arm(kLingerTime);
  drained_ = 0;
  drain();
}

void Session::drain() {
  buffer_.consume(buffer_.size());
  socket_.async_read_some(buffer_.prepare(64 * 1024),
                          [self = shared_from_this()](error_code error, std::size_t bytes) {
                            self->drained_ += bytes;
                            if (error || self->drained_ > kLingerBytes) return self->close();
                            self->buffer_.commit(bytes);
                            self->drain();
                          });
}

const Route* ServerState::find_route(const std::string& method, const std::string& path) const {
  for (const Route& route : routes) {
    if (route.method == method && (route.path == path || route.path == "*")) return &route;
  }
  return nullptr;
}

void ServerState::accept() {
  acceptor.async_accept(io, [this](error_code error, tcp::socket socket) {
    if (!acceptor.is_open()) return;
    if (error) {
      // Out of file descriptors, most likely: try again shortly rather than spin.
      accept_retry.expires_after(std::chrono::milliseconds(100));
      accept_retry.async_wait([this](error_code wait_error) {
        if (!wait_error && acceptor.is_open()) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void ServerState::admit(tcp::socket socket) {
  // An answer is written as headers, then body: without TCP_NODELAY the body may wait for the
  // client's delayed ACK (40 ms on Linux).
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::size_t open = 0;
  {
    const std::lock_guard lock(sessions_mutex);
    open = sessions.size();
  }
  if (open >= static_cast<std::size_t>(limits.max_connections)) {
    if (auto victim = eviction_candidate()) {
      victim->close();
    } else {
      return refuse_connection(socket);
    }
  }
  std::make_shared<Session>(std::move(socket), *this)->start();
}

// The connection that has waited longest for a request, else the one that has been sending its
// request the longest; never one whose request is being handled or answered.
std::shared_ptr<Session> ServerState::eviction_candidate() {
  const std::lock_guard lock(sessions_mutex);
  Session* best = nullptr;
  for (Session* session : sessions) {
    const Session::State state = session->state();
    if (state != Session::State::kIdle && state != Session::State::kReading &&
        state != Session::State::kClosing) {
      continue;
    }
    const auto rank = [](const Session* s) {
      return std::make_pair(s->state() == Session::State::kReading, s->state_since());
    };
    if (!best || rank(session) < rank(best)) best = session;
  }
  return best ? best->weak_from_this().lock() : nullptr;
}

// Every connection is busy with a request: the newcomer is told so, without waiting on it.
void ServerState::refuse_connection(tcp::socket& socket) {
  Response response;
  response.status = 503;
  response.headers.emplace_back("Retry-After", "1");
  refusal_writer({},
                 "the server has serve.max_connections (" + std::to_string(limits.max_connections) +
                     ") connections busy",
                 response);
  wire::response<wire::string_body> answer(static_cast<wire::status>(response.status), 11);
  for (const auto& [name, value] : default_headers) answer.set(name, value);
  for (const auto& [name, value] : response.headers) answer.set(name, value);
  answer.set(wire::field::content_type, response.content_type);
  answer.body() = std::move(response.body);
  answer.keep_alive(false);
  answer.prepare_payload();
  error_code ignored;
  socket.non_blocking(true, ignored);
  wire::write(socket, answer, ignored);
  socket.close(ignored);
}

void ServerState::close_waiting_sessions() {
  std::vector<std::shared_ptr<Session>> waiting;
  {
    const std::lock_guard lock(sessions_mutex);
    for (Session* session : sessions) {
      if (session->state() == Session::State::kIdle ||
          session->state() == Session::State::kReading) {
        if (auto alive = session->weak_from_this().lock()) waiting.push_back(std::move(alive));
      }
    }
  }
  for (const auto& session : waiting) session->close();
}

HttpServer::HttpServer(const Limits& limits, RefusalWriter refusal_writer)
    : state_(std::make_unique<ServerState>(limits, std::move(refusal_writer))) {}

HttpServer::~HttpServer() {
  stop();
  wait();
}

void HttpServer::route(std::string method, std::string path, Dispatch dispatch, Handler handler) {
  state_->routes.push_back({std::move(method), std::move(path), dispatch, std::move(handler)});
}

void HttpServer::set_default_headers(Fields headers) {
  state_->default_headers = std::move(headers);
}

int HttpServer::listen(const std::string& host, int port) {
  ServerState& state = *state_;
  const std::string address = host + ":" + std::to_string(port);
  try {
    tcp::resolver resolver(state.io);
    const tcp::endpoint endpoint =
        resolver.resolve(host, std::to_string(port), tcp::resolver::passive)->endpoint();
    state.acceptor.open(endpoint.protocol());
    // SO_REUSEADDR lets a restarted server bind at once; without SO_REUSEPORT no second server
    // can share the port.
    state.acceptor.set_option(tcp::acceptor::reuse_address(true));
    state.acceptor.bind(endpoint);
    state.acceptor.listen(net::socket_base::max_listen_connections);
  } catch (const boost::system::system_error& error) {
    throw Error("serve: cannot listen on " + address + ": " + error.code().message() +
                " (--port 0 picks a free port)");
  }
  raise_open_file_limit();
  state.accept();
  state.network = std::thread([&state] { state.io.run(); });
  return state.acceptor.local_endpoint().port();
}

void HttpServer::stop() {
  ServerState& state = *state_;
  if (state.stopping.exchange(true)) return;
  net::post(state.io, [&state] {
    error_code ignored;
    state.acceptor.close(ignored);
    state.accept_retry.cancel();
    state.close_waiting_sessions();
  });
}

int64_t HttpServer::open_connections() const {
  const std::lock_guard lock(state_->sessions_mutex);
  return static_cast<int64_t>(state_->sessions.size());
}

void HttpServer::wait() {
  if (state_->network.joinable()) state_->network.join();
  state_->workers.join();
}

}  // namespace nmt::serve::http
