// One connection of the HTTP layer: wait for a request, read and check its head and body within
// the deadlines and limits, hand it to its route's handler, write the answer, linger on close.
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>

#include "nmt/check.h"
#include "nmt/error.h"
#include "serve/api_fields.h"
#include "serve/http_connection.h"

namespace nmt::serve::http {
namespace {

// How long, and how much, a closing connection reads of what its client still sends, so that the
// kernel does not reset the connection over unread bytes before the client has read our answer
// (RFC 9112 §9.6; nginx lingers up to 30 s). Most clients send a whole body before they read: one
// refused with 413 is drained up to these bounds, costing time but no memory.
constexpr std::chrono::milliseconds kLingerTime{5000};
constexpr std::size_t kLingerBytes = std::size_t{64} << 20;

std::string trimmed_lower(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return lower(std::string(text.substr(first, last - first + 1)));
}

std::string milliseconds_text(std::chrono::milliseconds time) {
  return std::to_string(time.count()) + " ms";
}

bool is_host_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("-._~!$&'()*+,;=%").find(c) != std::string_view::npos;
}

bool is_port(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// RFC 9112 §3.2: Host = uri-host [ ":" port ], the host a reg-name, IPv4 address or bracketed IP
// literal (RFC 3986 §3.2.2); empty when the target has no authority.
bool is_valid_host(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view literal = host.substr(1, close - 1);
    const bool is_literal = !literal.empty() && std::all_of(literal.begin(), literal.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.' || c == 'v';
    });
    const std::string_view rest = host.substr(close + 1);
    return is_literal && (rest.empty() || (rest.front() == ':' && is_port(rest.substr(1))));
  }
  const auto colon = host.find(':');
  const std::string_view name = host.substr(0, colon);
  return std::all_of(name.begin(), name.end(), is_host_character) &&
         (colon == std::string_view::npos || is_port(host.substr(colon + 1)));
}

// Why the head's Host fields are refused, or "" (RFC 9112 §3.2: HTTP/1.1 requests carry exactly
// one, and a server answers 400 to one without it, with several or with an invalid value).
std::string host_problem(const wire::request_header<>& head, unsigned version) {
  const std::size_t count = head.count(wire::field::host);
  if (count == 0) return version >= 11 ? "Bad request: an HTTP/1.1 request needs a Host field" : "";
  if (count > 1) return "Bad request: more than one Host field";
  const std::string_view host = head[wire::field::host];
  if (!is_valid_host(host)) {
    return "Bad request: invalid Host field \"" + check::shorten(std::string(host)) + "\"";
  }
  return "";
}

// The path and query of a request target in origin form ("/translate?x=1") or absolute form
// ("http://host:8080/translate?x=1", which RFC 9112 §3.2.2 says servers must accept: proxies send
// it); an absolute target without a path asks for "/".
std::string origin_form(std::string_view target) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (lower(std::string(target.substr(0, scheme.size()))) != scheme) continue;
    const auto path = target.find_first_of("/?", scheme.size());
    if (path == std::string_view::npos) return "/";
    return (target[path] == '?' ? "/" : "") + std::string(target.substr(path));
  }
  return std::string(target);
}

}  // namespace

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
  is_head_ = false;
  request_line_.clear();
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
  request_.method = std::string(head.method_string());
  is_head_ = head.method() == wire::verb::head;
  version_ = head.version();
  arrived_ = std::chrono::system_clock::now();
  head_read_ = Clock::now();
  request_line_ = request_.method + " " + std::string(head.target()) + " HTTP/" +
                  std::to_string(version_ / 10) + "." + std::to_string(version_ % 10);
  const auto sent_id = head.find("X-Request-Id");
  request_.id = request_id(sent_id == head.end() ? std::string_view() : sent_id->value());
  if (const std::string problem = host_problem(head, version_); !problem.empty()) {
    return refuse(400, problem);
  }
  const std::string target = origin_form(head.target());
  const auto question = target.find('?');
  request_.path = target.substr(0, question);
  if (question != std::string::npos) request_.query = target.substr(question + 1);
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
  // RFC 9110 §10.1.1: an HTTP/1.0 client cannot read an interim answer.
  if (version_ >= 11 && trimmed_lower(head[wire::field::expect]) == "100-continue" &&
      !parser_->is_done()) {
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
  client_left_ = std::make_shared<std::atomic<bool>>(false);
  request_.client_left = client_left_;
  // RFC 9112 §6.1: a chunked HTTP/1.0 request has faulty framing; close after answering it.
  keep_alive_ = parser_->get().keep_alive() && !(version_ == 10 && parser_->chunked());
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
  if (error == wire::error::bad_version) return on_other_version();
  if (error == wire::error::buffer_overflow) {
    return refuse(400, "Bad request: a chunk header or trailer longer than " +
                           std::to_string(kMaxUnparsedBytes) + " bytes");
  }
  const bool client_left = error == wire::error::end_of_stream ||
                           error == wire::error::partial_message || error == net::error::eof ||
                           error == net::error::connection_reset ||
                           error == net::error::operation_aborted;
  if (client_left) return close();
  refuse(400, "Bad request: " + error.message());
}

// Beast reads HTTP/1.0 and HTTP/1.1 alone, and leaves the request line it refused in the buffer.
// RFC 9110 §6.2: a later HTTP/1.x is read and answered as HTTP/1.1; another major version is not
// this framing at all (505).
void Session::on_other_version() {
  constexpr std::string_view kBadVersion = "Bad request: bad version";
  constexpr std::size_t kVersionSize = 8;  // "HTTP/1.1"
  char* bytes = static_cast<char*>(buffer_.data().data());
  const std::string_view received(bytes, buffer_.size());
  const std::string_view line = received.substr(0, received.find("\r\n"));
  if (line.size() == received.size() || line.size() <= kVersionSize ||
      line[line.size() - kVersionSize - 1] != ' ') {
    return refuse(400, std::string(kBadVersion));
  }
  const std::size_t at = line.size() - kVersionSize;
  const std::string_view version = line.substr(at);
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (version.substr(0, 5) != "HTTP/" || !is_digit(version[5]) || version[6] != '.' ||
      !is_digit(version[7])) {
    return refuse(400, std::string(kBadVersion));
  }
  if (version[5] != '1') {
    return refuse(505, "HTTP version not supported: " + std::string(version.substr(5)) +
                           " (this server speaks HTTP/1.1 and HTTP/1.0)");
  }
  bytes[at + kVersionSize - 1] = '1';
  read_head();
}

void Session::dispatch() {
  deadline_.cancel();
  enter(State::kHandling);
  const Route* route = server_.find_route(is_head_ ? "GET" : request_.method, request_.path);
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
  watch_client();
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

// While a worker handles the request, the end of the stream means the client left. A readable
// socket may also be the client's next request, pipelined, which says nothing: then the watch
// ends.
void Session::watch_client() {
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this(),
                                              left = client_left_](error_code error) {
    if (error || self->state_ != State::kHandling || left != self->client_left_) return;
    char byte = 0;
    const ssize_t peeked =
        ::recv(self->socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked > 0) return;
    if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return self->watch_client();
    }
    left->store(true);
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
  if (request_.id.empty()) request_.id = request_id({});  // refused before its head was read
  answer->set("X-Request-Id", request_.id);
  if (!response.content_type.empty()) answer->set(wire::field::content_type, response.content_type);
  answer->body() = std::move(response.body);
  answer->keep_alive(keep_alive);
  answer->prepare_payload();
  arm(server_.limits.read_timeout);
  auto written = [self = shared_from_this(), answer, keep_alive,
                  sentences = response.sentences](error_code error, std::size_t) {
    self->deadline_.cancel();
    self->log_access(answer->result_int(), answer->body().size(), sentences);
    if (error) return self->close();
    if (!keep_alive) return self->linger_close();
    self->next_request();
  };
  if (!is_head_) return wire::async_write(socket_, *answer, std::move(written));
  // RFC 9110 §9.3.2: HEAD gets GET's head, Content-Length included, and no body.
  auto head_only = std::make_shared<wire::response_serializer<wire::string_body>>(*answer);
  wire::async_write_header(socket_, *head_only,
                           [head_only, written = std::move(written)](error_code error,
                                                                     std::size_t bytes) mutable {
                             written(error, bytes);
                           });
}

std::string Session::request_id(std::string_view sent) const {
  const bool is_usable =
      !sent.empty() && sent.size() <= 64 && std::all_of(sent.begin(), sent.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
               c == '-';
      });
  if (is_usable) return std::string(sent);
  // SplitMix64's finaliser: consecutive counts give unrelated-looking ids.
  uint64_t x = server_.request_ids.fetch_add(0x9E3779B97F4A7C15ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(x ^ (x >> 31)));
  return id;
}

void Session::log_access(int status, std::size_t body_bytes, std::size_t sentences) const {
  if (!server_.access_logger) return;
  AccessRecord record;
  record.remote_address = remote_address_;
  record.request_line = request_line_;
  record.status = status;
  record.body_bytes = body_bytes;
  record.request_id = request_.id;
  record.request_bytes = request_.body.size();
  record.sentences = sentences;
  record.referer = request_.header("Referer");
  record.user_agent = request_.header("User-Agent");
  if (request_line_.empty()) {  // refused before its head was read
    record.arrived = std::chrono::system_clock::now();
  } else {
    record.arrived = arrived_;
    record.seconds = std::chrono::duration<double>(Clock::now() - head_read_).count();
  }
  server_.access_logger(record);
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

}  // namespace nmt::serve::http
