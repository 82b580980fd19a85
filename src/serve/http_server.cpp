#include <sys/resource.h>

#include <algorithm>

#include "nmt/error.h"
#include "serve/api_fields.h"
#include "serve/http_connection.h"

namespace nmt::serve::http {
namespace {

// Files the process keeps open beside its connections: the listening socket, the model's and
// the logs' files, LibTorch's and the thread pools' descriptors.
constexpr int64_t kFilesBesideConnections = 64;

// Enough open files for max_connections sockets: the soft limit is often 1024 where the hard one
// allows far more. Returns the soft limit now, RLIM_INFINITY when unknown.
rlim_t raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return RLIM_INFINITY;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

// limits with max_connections lowered to what the open-file limit leaves for sockets: a server
// past it would fail to accept (EMFILE) instead of closing an idle connection for the new one.
Limits fit_to_open_files(Limits limits) {
  const rlim_t files = raise_open_file_limit();
  if (files == RLIM_INFINITY) return limits;
  const int64_t room = std::max<int64_t>(1, static_cast<int64_t>(files) - kFilesBesideConnections);
  limits.max_connections = std::min(limits.max_connections, room);
  return limits;
}

}  // namespace

std::string Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, name)) return value;
  }
  return "";
}

const Route* ServerState::find_route(const std::string& method, const std::string& path) const {
  for (const Route& route : routes) {
    if (route.method == method && (route.path == path || route.path == "*")) return &route;
  }
  return nullptr;
}

void HttpServer::set_access_logger(AccessLogger logger) {
  state_->access_logger = std::move(logger);
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
    : state_(std::make_unique<ServerState>(fit_to_open_files(limits), std::move(refusal_writer))) {}

int64_t HttpServer::max_connections() const { return state_->limits.max_connections; }

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
