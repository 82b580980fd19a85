// The access log: its line format (golden), escaping of what clients send, and a server writing
// one line per answer, HEAD and refusals included.
#include "serve/access_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "fake_model.h"
#include "http_client.h"
#include "nmt/error.h"
#include "nmt/serve/server.h"
#include "raw_connection.h"
#include "test_utils.h"

namespace nmt::serve {
namespace {

using namespace std::chrono_literals;

http::AccessRecord record() {
  http::AccessRecord record;
  record.remote_address = "127.0.0.1";
  // 2026-11-29 10:20:05 UTC
  record.arrived = std::chrono::system_clock::time_point(std::chrono::seconds(1795947605));
  record.request_line = "POST /translate HTTP/1.1";
  record.status = 200;
  record.body_bytes = 61;
  record.user_agent = "curl/7.88.1";
  record.seconds = 0.1234;
  return record;
}

TEST(AccessLogLineTest, IsTheCombinedLogFormatWithTheSecondsTaken) {
  EXPECT_EQ(access_log_line(record()),
            R"(127.0.0.1 - - [29/Nov/2026:10:20:05 +0000] "POST /translate HTTP/1.1" 200 61 "-" )"
            R"("curl/7.88.1" 0.123)");
}

TEST(AccessLogLineTest, EscapesWhatCouldForgeALine) {
  http::AccessRecord forged = record();
  forged.request_line = "GET /\" 200 1 \"-\" \"x\" 0.0\n127.0.0.1 HTTP/1.1";
  forged.user_agent = "a\\b\tñ";
  forged.remote_address.clear();
  EXPECT_EQ(access_log_line(forged),
            R"(- - - [29/Nov/2026:10:20:05 +0000] "GET /\x22 200 1 \x22-\x22 \x22x\x22 0.0\x0A)"
            R"(127.0.0.1 HTTP/1.1" 200 61 "-" "a\x5Cb\x09\xC3\xB1" 0.123)");
}

TEST(AccessLogTest, AFileThatCannotBeOpenedIsNamed) {
  try {
    AccessLog log("/nonexistent-dir/access.log");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "serve.access_log: cannot open /nonexistent-dir/access.log: No such file or "
                 "directory");
  }
}

TEST(AccessLogTest, TheServerWritesALinePerAnswer) {
  const testing::ScratchDir scratch;
  ServeOptions options;
  options.port = 0;
  options.max_wait_ms = 1;
  options.access_log = scratch.file("access.log");
  testing::FakeModel model;
  {
    Server server(options, "", [](const std::string&) {});
    const int port = server.start();
    server.set_model(testing::en_es_model(), model.function());
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(5);
    ASSERT_TRUE(client.Post("/v1/translate", R"({"q": "hi"})", "application/json"));
    testing::RawConnection raw(port);
    raw.send("HEAD /health HTTP/1.1\r\nHost: x\r\nUser-Agent: probe \"1\"\r\n\r\n"
             "GET /health HTTP/2.0\r\nHost: x\r\n\r\n");
    raw.read_until_closed(5000ms);
    model.open();
  }
  std::ifstream in(options.access_log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  const std::regex post(
      R"(127\.0\.0\.1 - - \[\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d \+0000\] "POST /v1/translate HTTP/1\.1" )"
      R"(200 \d+ "-" "cpp-httplib/[0-9.]+" \d+\.\d{3})");
  EXPECT_TRUE(std::regex_match(lines[0], post)) << lines[0];
  EXPECT_NE(lines[1].find(R"("HEAD /health HTTP/1.1" 200 )"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(R"("probe \x221\x22")"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(R"("-" 505 )"), std::string::npos) << lines[2];
}

}  // namespace
}  // namespace nmt::serve
