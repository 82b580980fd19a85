// The HTTP/1.1 layer of `nmt serve` (private to src/serve), on Boost.Beast and Asio (Debian's
// libboost-dev), written for a public port:
//
// - Framing is strict (Beast's parser): one valid Content-Length or chunked, never both; a second
//   Content-Length with another value, a length that is not a number, a Transfer-Encoding other
//   than chunked, a malformed head: 400 (501 for an unknown transfer coding) and the connection
//   closes, so no byte after a bad head is ever read as a request.
// - The body limit holds for the bytes received whatever the framing (chunked included), and a
//   declared length over it is refused before the body is read. Compressed bodies
//   (Content-Encoding other than identity) are refused with 415: their size says nothing of what
//   they inflate to.
// - Waiting costs no thread: one network thread reads and writes every connection; handlers of
//   Dispatch::kWorker (those that wait for translations) run on `worker_threads` threads.
// - Deadlines: a connection waits idle_timeout for the first byte of a request (keep-alive
//   included), then read_timeout for the rest of it, head and body (408, closed); an answer a
//   client does not read is dropped after read_timeout.
// - At most max_connections connections: a new one closes the longest-idle open connection,
//   else the one that has been sending its request the longest; handlers' connections are never
//   closed. Pipelined requests are answered in order.
// - stop() closes the listening socket and idle connections, lets every request already read get
//   its answer (then closes its connection), and wait() returns when the last one is written.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nmt::serve::http {

using Fields = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET"; "" when the head could not be read
  std::string path;    // the target before '?'
  std::string query;   // the target after '?', undecoded
  Fields headers;      // in order, names as sent
  std::string body;
  // The request's id, sent back in X-Request-Id and written to the access log: the client's own
  // X-Request-Id when it is 1-64 characters of [A-Za-z0-9._:-] (a proxy's, to follow a request
  // through both logs), else 16 hex digits the server made.
  std::string id;
  // Becomes true when the client closes its connection while a worker handler runs (it may then
  // stop working for it). Never null for a request a handler gets.
  std::shared_ptr<const std::atomic<bool>> client_left = std::make_shared<std::atomic<bool>>(false);

  // The first header called `name` (case-insensitive); "" when absent.
  std::string header(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type;
  std::string body;
  Fields headers;
  std::size_t sentences = 0;  // sentences translated for it, for the access log
};

using Handler = std::function<void(const Request&, Response&)>;

// Quick handlers answer on the network thread and must not wait; worker handlers may.
enum class Dispatch { kQuick, kWorker };

struct Limits {
  int64_t max_body_bytes = 1 << 20;
  int64_t max_connections = 512;
  int64_t worker_threads = 64;
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds read_timeout{10000};
};

// The largest request head (request line and headers) read; beyond it 431.
constexpr std::size_t kMaxHeadBytes = 16 * 1024;
// The most a connection holds received and unparsed: a head, or a chunk header or trailer line,
// and the read that brought it.
constexpr std::size_t kMaxUnparsedBytes = kMaxHeadBytes + 64 * 1024;

// One answered request, as the access log reports it.
struct AccessRecord {
  std::string remote_address;                     // the client's IP address
  std::chrono::system_clock::time_point arrived;  // when its head had been read
  std::string request_line;  // method, target and version as sent ("" when unreadable)
  int status = 0;
  std::size_t body_bytes = 0;  // of the answer (HEAD: the body not sent)
  std::string referer, user_agent;
  double seconds = 0.0;  // from the head read to the answer written
  std::string request_id;         // Request::id
  std::size_t request_bytes = 0;  // of the request's body, as received (decoded from chunks)
  std::size_t sentences = 0;      // Response::sentences
};
using AccessLogger = std::function<void(const AccessRecord&)>;

// Words the layer's own refusals: fills `response` (status already set) for `message`. The
// request has what was read of it (method and path, when the head was read).
using RefusalWriter =
    std::function<void(const Request& request, const std::string& message, Response& response)>;

struct ServerState;

class HttpServer {
 public:
  // Raises the open-file limit to its hard limit, and lowers limits.max_connections to what that
  // leaves for sockets (max_connections()).
  HttpServer(const Limits& limits, RefusalWriter refusal_writer);
  ~HttpServer();  // stop(), wait()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Before listen(): the handler of `method` `path` (exact). A request that matches no route is
  // refused with 404; method "OPTIONS" with path "*" matches every path.
  void route(std::string method, std::string path, Dispatch dispatch, Handler handler);
  // Headers every answer carries (CORS).
  void set_default_headers(Fields headers);
  // Before listen(): called on the network thread once each answer is written (must not wait).
  void set_access_logger(AccessLogger logger);
  // The connections open at most: Limits::max_connections, or fewer where the open-file limit
  // leaves fewer sockets.
  int64_t max_connections() const;

  // Binds host:port (0: any free port) and serves from a thread of its own; returns the port.
  // Throws nmt::Error naming the address when it cannot bind.
  int listen(const std::string& host, int port);
  void stop();  // thread-safe, returns at once
  void wait();

  // Connections open now, idle ones included. Thread-safe.
  int64_t open_connections() const;

 private:
  std::unique_ptr<ServerState> state_;
};

}  // namespace nmt::serve::http
