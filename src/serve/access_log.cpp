#include "serve/access_log.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string_view>

#include "nmt/error.h"

namespace nmt::serve {
namespace {

// The request line is kept to its first kMaxLoggedBytes: a 16 KiB target is no line to read.
constexpr std::size_t kMaxLoggedBytes = 2048;

std::string quoted(const std::string& text) {
  if (text.empty()) return "\"-\"";
  std::string out = "\"";
  for (const char c : std::string_view(text).substr(0, kMaxLoggedBytes)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || byte < 0x20 || byte >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  if (text.size() > kMaxLoggedBytes) out += "...";
  return out + "\"";
}

std::string clf_time(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "[%d/%b/%Y:%H:%M:%S +0000]", &utc);
  return text;
}

int no_close(std::FILE*) { return 0; }

}  // namespace

std::string access_log_line(const http::AccessRecord& record) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", record.seconds);
  return (record.remote_address.empty() ? std::string("-") : record.remote_address) + " - - " +
         clf_time(record.arrived) + " " + quoted(record.request_line) + " " +
         std::to_string(record.status) + " " + std::to_string(record.body_bytes) + " " +
         quoted(record.referer) + " " + quoted(record.user_agent) + " " + seconds + " " +
         (record.request_id.empty() ? std::string("-") : record.request_id) + " " +
         std::to_string(record.request_bytes) + " " + std::to_string(record.sentences);
}

AccessLog::AccessLog(const std::string& path)
    : file_(path == "-" ? stdout : std::fopen(path.c_str(), "a"), path == "-" ? no_close : std::fclose) {
  if (!file_) {
    throw Error("serve.access_log: cannot open " + path + ": " + std::strerror(errno));
  }
}

void AccessLog::write(const http::AccessRecord& record) {
  const std::string line = access_log_line(record) + "\n";
  const std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_.get());
  std::fflush(file_.get());
}

}  // namespace nmt::serve
