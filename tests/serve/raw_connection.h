// A TCP connection to the server on loopback that sends exactly the bytes a test gives it, for the
// requests no well-behaved client library would send: malformed framing, pipelined requests,
// heads sent a byte at a time, connections that say nothing.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nmt::testing {

class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
    }
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // False when the server has closed the connection.
  bool send(std::string_view bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

  // What the server sends until it closes the connection, or until `timeout`.
  std::string read_until_closed(std::chrono::milliseconds timeout) {
    return read_until("", timeout);
  }

  // What the server sends until `text` has arrived ("": until it closes), or until `timeout`.
  std::string read_until(std::string_view text, std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (text.empty() || received_.find(text) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      pollfd ready{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&ready, 1, static_cast<int>(left.count())) <= 0) break;
      char chunk[4096];
      const ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
      if (got <= 0) {
        closed_ = true;
        break;
      }
      received_.append(chunk, static_cast<std::size_t>(got));
    }
    return received_;
  }

  // Whether the server closed the connection (the last read met its end).
  bool closed() const { return closed_; }

 private:
  int fd_;
  std::string received_;
  bool closed_ = false;
};

// How many HTTP/1.1 answers `text` holds (status lines).
inline int count_answers(const std::string& text) {
  int answers = 0;
  for (auto at = text.find("HTTP/1.1 "); at != std::string::npos;
       at = text.find("HTTP/1.1 ", at + 1)) {
    ++answers;
  }
  return answers;
}

}  // namespace nmt::testing
