// nmt serve's access log (serve.access_log): one line per answered request in the Combined Log
// Format that Apache and nginx write and log tools read, followed by the seconds from the request
// head to the answer written (nginx's $request_time), the request's id (X-Request-Id), the bytes
// of its body and the sentences translated for it:
//
//   127.0.0.1 - - [29/Nov/2026:10:20:00 +0000] "POST /translate HTTP/1.1" 200 61 "-" "curl/7.88.1" 0.123 6f1c0a9e2b7d4c55 27 2
//
// Times are UTC. Quoted fields escape '"', '\' and bytes outside printable ASCII as \xHH, as nginx
// does, so that no client can forge a line; the request line is cut after 2,048 bytes ("...").
// Private to src/serve.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "serve/http_server.h"

namespace nmt::serve {

std::string access_log_line(const http::AccessRecord& record);

class AccessLog {
 public:
  // Appends to `path`, or writes to standard output for "-". Throws nmt::Error naming the file
  // when it cannot be opened.
  explicit AccessLog(const std::string& path);
  // Thread-safe; each line is flushed as written, so that `tail -f` and log shippers see it.
  void write(const http::AccessRecord& record);

 private:
  std::mutex mutex_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
};

}  // namespace nmt::serve
