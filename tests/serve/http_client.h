// HTTP on loopback for the serve tests: a cpp-httplib client with timeouts, so that a server that
// hangs fails a test instead of blocking it.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace nmt::testing {

inline httplib::Client loopback(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  client.set_read_timeout(60);
  client.set_write_timeout(10);
  return client;
}

// POSTs a JSON body.
inline httplib::Result post_json(int port,
                                 const std::string& path,
                                 const std::string& body,
                                 const httplib::Headers& headers = {}) {
  return loopback(port).Post(path.c_str(), headers, body, "application/json");
}

// Polls GET path until it answers `status`; false after `seconds`.
inline bool wait_for_status(int port, const std::string& path, int status, int seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(1);
    client.set_read_timeout(5);
    if (auto result = client.Get(path.c_str()); result && result->status == status) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace nmt::testing
