// The access log: its line format (golden), escaping of what clients send, and a server writing
// one line per answer, HEAD and refusals included.
#include "serve/access_log.h"

#include <gtest/gtest.h>

#include <filesystem>
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
  record.request_id = "6f1c0a9e2b7d4c55";
  record.request_bytes = 27;
  record.sentences = 2;
  return record;
}

TEST(AccessLogLineTest, IsTheCombinedLogFormatWithSecondsIdBytesInAndSentences) {
  EXPECT_EQ(access_log_line(record()),
            R"(127.0.0.1 - - [29/Nov/2026:10:20:05 +0000] "POST /translate HTTP/1.1" 200 61 "-" )"
            R"("curl/7.88.1" 0.123 6f1c0a9e2b7d4c55 27 2)");
}

TEST(AccessLogLineTest, ALongRequestLineIsCut) {
  http::AccessRecord long_target = record();
  long_target.request_line = "GET /" + std::string(5000, 'a') + " HTTP/1.1";
  const std::string line = access_log_line(long_target);
  EXPECT_NE(line.find("\"GET /" + std::string(2043, 'a') + "...\" 200 61"), std::string::npos)
      << line.size();
  EXPECT_LT(line.size(), 2200u);
}

TEST(AccessLogLineTest, EscapesWhatCouldForgeALine) {
  http::AccessRecord forged = record();
  forged.request_line = "GET /\" 200 1 \"-\" \"x\" 0.0\n127.0.0.1 HTTP/1.1";
  forged.user_agent = "a\\b\tñ";
  forged.remote_address.clear();
  EXPECT_EQ(access_log_line(forged),
            R"(- - - [29/Nov/2026:10:20:05 +0000] "GET /\x22 200 1 \x22-\x22 \x22x\x22 0.0\x0A)"
            R"(127.0.0.1 HTTP/1.1" 200 61 "-" "a\x5Cb\x09\xC3\xB1" 0.123 6f1c0a9e2b7d4c55 27 2)");
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
    const auto answered = client.Post("/v1/translate", R"({"q": "hi"})", "application/json");
    ASSERT_TRUE(answered);
    EXPECT_TRUE(std::regex_match(answered->get_header_value("X-Request-Id"),
                                 std::regex("[0-9a-f]{16}")));
    testing::RawConnection raw(port);
    raw.send("HEAD /health HTTP/1.1\r\nHost: x\r\nUser-Agent: probe \"1\"\r\n"
             "X-Request-Id: proxy-42\r\n\r\n"
             "GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: two words\r\n\r\n"
             "GET /health HTTP/2.0\r\nHost: x\r\n\r\n");
    const std::string answers = raw.read_until_closed(5000ms);
    EXPECT_NE(answers.find("X-Request-Id: proxy-42\r\n"), std::string::npos) << answers;
    EXPECT_EQ(answers.find("two words"), std::string::npos) << "an unusable id is replaced";
    model.open();
  }
  options.access_log = "off";
  {
    Server quiet(options, "", [](const std::string&) {});
    EXPECT_FALSE(std::filesystem::exists("off"));
  }
  std::ifstream in(scratch.file("access.log"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  const std::regex post(
      R"(127\.0\.0\.1 - - \[\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d \+0000\] "POST /v1/translate HTTP/1\.1" )"
      R"(200 \d+ "-" "cpp-httplib/[0-9.]+" \d+\.\d{3} [0-9a-f]{16} 11 1)");
  EXPECT_TRUE(std::regex_match(lines[0], post)) << lines[0];
  EXPECT_NE(lines[1].find(R"("HEAD /health HTTP/1.1" 200 )"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(R"("probe \x221\x22" )"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(" proxy-42 0 0"), std::string::npos) << lines[1];
  EXPECT_TRUE(std::regex_search(lines[2], std::regex(" [0-9a-f]{16} 0 0$"))) << lines[2];
  EXPECT_NE(lines[3].find(R"("-" 505 )"), std::string::npos) << lines[3];
}

}  // namespace
}  // namespace nmt::serve
