// The connections of the HTTP layer (src/serve/http_server.h), private to it: the state the
// server shares with its connections (routes, limits, the open connections, the network thread)
// and one connection's state machine, Session (src/serve/http_session.cpp).
#pragma once

// Beast's strings as std::string_view (Boost 1.74 defaults to boost::string_view).
#define BOOST_BEAST_USE_STD_STRING_VIEW

#include <atomic>
#include <cstdint>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "serve/http_server.h"

namespace nmt::serve::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace wire = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

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
  AccessLogger access_logger;
  std::atomic<bool> stopping{false};
  // Ids for requests that bring none: a random start, so that two servers' ids differ.
  std::atomic<uint64_t> request_ids{std::random_device{}() * 0x9E3779B97F4A7C15ull};
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
    error_code ignored;
    remote_address_ = socket_.remote_endpoint(ignored).address().to_string();
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
  void on_other_version();
  void dispatch();
  void watch_client();
  void run_handler(const Route& route, Response& response) const;
  void refuse(int status, const std::string& message);
  void write(Response response, bool keep_alive);
  void log_access(int status, std::size_t body_bytes, std::size_t sentences) const;
  std::string request_id(std::string_view sent) const;
  void linger_close();
  void drain();

  tcp::socket socket_;
  ServerState& server_;
  std::list<Session*>::iterator place_;
  net::steady_timer deadline_;
  bool deadline_passed_ = false;
  State state_ = State::kIdle;
  Clock::time_point state_since_ = Clock::now();
  // Bytes received and not yet parsed. Bounded, because Beast holds a chunk header (with its
  // extensions) or a trailer field whole before it parses it, and counts neither against the
  // head or body limits: without a bound, one line that never ends takes all memory.
  beast::flat_buffer buffer_{kMaxUnparsedBytes};
  std::optional<wire::request_parser<wire::string_body>> parser_;
  Request request_;
  std::shared_ptr<std::atomic<bool>> client_left_;  // request_.client_left, writable
  unsigned version_ = 11;
  bool is_head_ = false;  // a HEAD request: answered as GET, without the body
  std::string remote_address_;
  std::string request_line_;  // as sent, for the access log
  std::chrono::system_clock::time_point arrived_;
  Clock::time_point head_read_;
  bool keep_alive_ = false;
  std::size_t drained_ = 0;
};

}  // namespace nmt::serve::http
