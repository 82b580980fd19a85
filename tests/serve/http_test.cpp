// The HTTP layer against hostile and sloppy clients, on loopback with the fake model: framing
// that could smuggle a request, limits that chunked or compressed bodies could skip, slow and
// idle connections that could take the server, pipelined requests, deadlines. Each test sends the
// bytes themselves (raw_connection.h); a server that hangs fails it through the read timeouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_model.h"
#include "http_client.h"
#include "nmt/serve/server.h"
#include "raw_connection.h"

namespace nmt::serve {
namespace {

using namespace std::chrono_literals;
using testing::count_answers;
using testing::RawConnection;

constexpr auto kPatience = 5000ms;  // for an answer that is due at once

ServeOptions hardening_options() {
  ServeOptions options;
  options.port = 0;
  options.max_wait_ms = 1;
  options.http_threads = 2;
  return options;
}

class HttpHardeningTest : public ::testing::Test {
 protected:
  void start(const ServeOptions& options = hardening_options()) {
    server_ = std::make_unique<Server>(options, "", [](const std::string&) {});
    port_ = server_->start();
    server_->set_model(testing::en_es_model(), model_.function());
  }
  void TearDown() override {
    model_.open();
    server_.reset();
  }

  // A JSON POST to /v1/translate with the given extra head lines and raw body bytes.
  static std::string post(const std::string& head_lines, const std::string& body) {
    return "POST /v1/translate HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
           head_lines + "\r\n" + body;
  }

  testing::FakeModel model_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: test\r\n\r\n";

TEST_F(HttpHardeningTest, AContentLengthThatIsNotANumberIs400AndNothingAfterItIsRead) {
  start();
  RawConnection connection(port_);
  connection.send(post("Content-Length: abc\r\n", kHealth));
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 400") << received;
  EXPECT_NE(received.find(R"({"error":"Bad request: bad Content-Length"})"), std::string::npos)
      << received;
  EXPECT_EQ(count_answers(received), 1) << "the bytes after the head ran as a request";
  EXPECT_TRUE(connection.closed());
}

TEST_F(HttpHardeningTest, ConflictingContentLengthsAre400) {
  start();
  RawConnection connection(port_);
  const std::string body = R"({"q": "hi"})";
  connection.send(post("Content-Length: 11\r\nContent-Length: 0\r\n", body + kHealth));
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 400") << received;
  EXPECT_EQ(count_answers(received), 1) << received;
  EXPECT_TRUE(model_.batches().empty());
}

TEST_F(HttpHardeningTest, ChunkedWithAContentLengthIs400) {
  start();
  RawConnection connection(port_);
  connection.send(post("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                       "b\r\n{\"q\": \"hi\"}\r\n0\r\n\r\n" + kHealth));
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_NE(received.find(R"({"error":"Bad request: bad Transfer-Encoding"})"), std::string::npos)
      << received;
  EXPECT_EQ(count_answers(received), 1) << received;
}

TEST_F(HttpHardeningTest, ATransferCodingOtherThanChunkedIs501) {
  start();
  RawConnection connection(port_);
  connection.send(post("Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n"));
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 501") << received;
  EXPECT_NE(received.find(R"({"error":"Transfer-Encoding \"gzip, chunked\" is not supported: )"
                          R"(send the body with Content-Length or chunked"})"),
            std::string::npos)
      << received;
}

// Refused as soon as the chunks received pass the limit: the rest of the body is never awaited.
TEST_F(HttpHardeningTest, AChunkedBodyIs413OnceItPassesTheLimit) {
  ServeOptions options = hardening_options();
  options.max_body_bytes = 1000;
  start(options);
  RawConnection connection(port_);
  // Four chunks of a request, none of them over the limit alone, and no last chunk.
  const std::string body = R"({"q": ")" + std::string(4000, 'a');
  std::string chunked;
  for (std::size_t at = 0; at < body.size(); at += 1000) {
    const std::string chunk = body.substr(at, 1000);
    char size[16];
    std::snprintf(size, sizeof size, "%zx", chunk.size());
    chunked += std::string(size) + "\r\n" + chunk + "\r\n";
  }
  connection.send(post("Transfer-Encoding: chunked\r\n", chunked));
  const std::string received = connection.read_until("}", kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 413") << received;
  EXPECT_NE(
      received.find(R"j({"error":"request body larger than serve.max_body_bytes (1000 bytes)"})j"),
      std::string::npos)
      << received;
  EXPECT_TRUE(model_.batches().empty());
}

// RFC 9112 §9.6: a refused body is drained, so that a client that sends all of it before reading,
// as most do, reads the 413 rather than a reset connection.
TEST_F(HttpHardeningTest, AClientSendingATooLargeBodyWholeReadsThe413) {
  ServeOptions options = hardening_options();
  options.max_body_bytes = 1000;
  start(options);
  RawConnection connection(port_);
  const std::string body(20 << 20, 'a');
  const std::string length = "Content-Length: " + std::to_string(body.size()) + "\r\n";
  ASSERT_TRUE(connection.send(post(length, body)))
      << "the server reset the connection while the body was being sent";
  const std::string received = connection.read_until("}", kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 413") << received;
}

// Beast holds a chunk header or trailer line whole before parsing it: a line that never ends must
// be refused at the bound, not buffered until the read timeout.
TEST_F(HttpHardeningTest, EndlessChunkExtensionsAndTrailersAreRefusedAtTheBound) {
  start();
  const std::string endless(1 << 20, 'b');
  for (const std::string& start_of_body :
       {"5;a=" + endless, "b\r\n{\"q\": \"hi\"}\r\n0\r\nX-Trailer: " + endless}) {
    RawConnection connection(port_);
    connection.send(post("Transfer-Encoding: chunked\r\n", start_of_body));
    const auto begin = std::chrono::steady_clock::now();
    const std::string received = connection.read_until("}", kPatience);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 2s) << "refused only at a deadline";
    EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 400") << received.substr(0, 200);
    EXPECT_NE(received.find(R"({"error":"Bad request: a chunk header or trailer longer than 81920 )"
                            R"(bytes"})"),
              std::string::npos)
        << received.substr(0, 200);
  }
  EXPECT_TRUE(model_.batches().empty());
}

TEST_F(HttpHardeningTest, ACompressedBodyIs415) {
  start();
  RawConnection connection(port_);
  // {"q": "good morning", "source": "en", "target": "es"}, gzip-compressed (Python's gzip).
  const std::string gzipped(
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xab\x56\x2a\x54\xb2\x52\x50\x4a\xcf\xcf\x4f\x51"
      "\xc8\xcd\x2f\xca\xcb\xcc\x4b\x57\xd2\x51\x50\x2a\xce\x2f\x2d\x4a\x4e\x05\xc9\xa4\xe6\x81"
      "\xf8\x25\x89\x45\xe9\xa9\x25\x60\x7e\xb1\x52\x2d\x00\xc3\x2b\xce\x37\x35\x00\x00\x00",
      65);
  connection.send(
      "POST /translate HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
      "Content-Encoding: gzip\r\nContent-Length: 65\r\n\r\n" +
      gzipped);
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 415") << received;
  EXPECT_NE(received.find(R"({"error":"Content-Encoding \"gzip\" is not accepted: send the body )"
                          R"(uncompressed"})"),
            std::string::npos)
      << received;
  EXPECT_TRUE(model_.batches().empty());
}

TEST_F(HttpHardeningTest, PipelinedRequestsAreAnsweredInOrder) {
  start();
  RawConnection connection(port_);
  const std::string first = R"({"q": "first"})";
  const std::string second = R"({"q": "second"})";
  connection.send(
      post("Content-Length: " + std::to_string(first.size()) + "\r\n", first) +
      post("Content-Length: " + std::to_string(second.size()) + "\r\nConnection: close\r\n",
           second));
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(count_answers(received), 2) << received;
  const auto at_first = received.find(R"({"text":"FIRST"})");
  const auto at_second = received.find(R"({"text":"SECOND"})");
  ASSERT_NE(at_first, std::string::npos) << received;
  ASSERT_NE(at_second, std::string::npos) << received;
  EXPECT_LT(at_first, at_second);
}

TEST_F(HttpHardeningTest, ExpectContinueGetsItsInterimAnswer) {
  start();
  RawConnection connection(port_);
  const std::string body = R"({"q": "hi"})";
  connection.send(post("Content-Length: 11\r\nExpect: 100-continue\r\nConnection: close\r\n", ""));
  EXPECT_EQ(connection.read_until("\r\n\r\n", kPatience), "HTTP/1.1 100 Continue\r\n\r\n");
  connection.send(body);
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_NE(received.find("HTTP/1.1 200 OK"), std::string::npos) << received;
  EXPECT_NE(received.find(R"({"text":"HI"})"), std::string::npos) << received;
}

TEST_F(HttpHardeningTest, SlowClientsDoNotHoldTheServer) {
  start();  // 2 handler threads
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 20; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port_));
    slow.back()->send("POST /v1/translate HTTP/1.1\r\nHost: te");
  }
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(2);
  const auto health = client.Get("/health");
  ASSERT_TRUE(health) << "no answer while 20 clients trickle their heads";
  EXPECT_EQ(health->status, 200);
  const auto translated = client.Post("/v1/translate", R"({"q": "hi"})", "application/json");
  ASSERT_TRUE(translated);
  EXPECT_EQ(translated->status, 200);
}

TEST_F(HttpHardeningTest, AHeadNotFinishedInTimeIs408) {
  ServeOptions options = hardening_options();
  options.read_timeout_ms = 200;
  start(options);
  RawConnection connection(port_);
  connection.send("POST /v1/translate HTTP/1.1\r\nHost: te");
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 408") << received;
  EXPECT_NE(received.find(R"j({"error":"request not received within serve.read_timeout_ms )j"
                          R"j((200 ms)"})j"),
            std::string::npos)
      << received;
  EXPECT_TRUE(connection.closed());
}

TEST_F(HttpHardeningTest, AConnectionThatSaysNothingIsClosedAfterTheIdleTimeout) {
  ServeOptions options = hardening_options();
  options.idle_timeout_ms = 200;
  start(options);
  RawConnection connection(port_);
  EXPECT_EQ(connection.read_until_closed(kPatience), "");
  EXPECT_TRUE(connection.closed());
}

TEST_F(HttpHardeningTest, BeyondMaxConnectionsTheLongestIdleConnectionMakesRoom) {
  ServeOptions options = hardening_options();
  options.max_connections = 8;
  start(options);
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 8; ++i) {
    idle.push_back(std::make_unique<RawConnection>(port_));  // accepted in order
  }
  RawConnection newcomer(port_);
  newcomer.send("GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
  const std::string received = newcomer.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 200") << received;
  EXPECT_EQ(idle.front()->read_until_closed(kPatience), "");
  EXPECT_TRUE(idle.front()->closed()) << "the oldest idle connection is still open";
}

TEST_F(HttpHardeningTest, MetricsCountTheOpenConnections) {
  start();
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(std::make_unique<RawConnection>(port_));
  // The three idle ones and the one asking; they are accepted as the server gets to them.
  std::string metrics;
  const auto end = std::chrono::steady_clock::now() + kPatience;
  while (std::chrono::steady_clock::now() < end) {
    const auto result = testing::loopback(port_).Get("/metrics");
    ASSERT_TRUE(result);
    metrics = result->body;
    if (metrics.find("\nnmt_http_connections 4\n") != std::string::npos) break;
  }
  EXPECT_NE(metrics.find("\nnmt_http_connections 4\n"), std::string::npos) << metrics;
}

TEST_F(HttpHardeningTest, AHeadOverItsLimitIs431) {
  start();
  RawConnection connection(port_);
  connection.send("GET /health HTTP/1.1\r\nHost: test\r\nX-Padding: " + std::string(20000, 'a') +
                  "\r\n\r\n");
  const std::string received = connection.read_until_closed(kPatience);
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 431") << received;
  EXPECT_NE(received.find(R"({"error":"request head larger than 16384 bytes"})"), std::string::npos)
      << received;
}

// The answer's status line, head and body, from the start of `text`; "" where it is cut short.
struct Answer {
  std::string status_line, head, body, rest;
};
Answer first_answer(const std::string& text) {
  Answer answer;
  const auto head_end = text.find("\r\n\r\n");
  if (head_end == std::string::npos) return answer;
  answer.head = text.substr(0, head_end + 4);
  answer.status_line = text.substr(0, text.find("\r\n"));
  const auto length_at = answer.head.find("Content-Length: ");
  const std::size_t length =
      length_at == std::string::npos ? 0 : std::stoul(answer.head.substr(length_at + 16));
  answer.body = text.substr(head_end + 4, length);
  answer.rest = text.substr(std::min(text.size(), head_end + 4 + length));
  return answer;
}

TEST_F(HttpHardeningTest, ARequestWhoseClientHungUpIsNotTranslated) {
  start();
  model_.close();
  RawConnection first(port_);
  first.send(post("Content-Length: 16\r\n", R"({"q": "waiting"})"));
  ASSERT_TRUE(model_.wait_for_batches(1));
  {
    RawConnection gone(port_);
    gone.send(post("Content-Length: 16\r\n", R"({"q": "Hung up"})"));
    std::this_thread::sleep_for(100ms);  // read and queued behind the first
  }
  std::this_thread::sleep_for(200ms);  // the server sees the connection end
  model_.open();
  EXPECT_NE(first.read_until(R"({"text":"WAITING"})", kPatience).find(R"({"text":"WAITING"})"),
            std::string::npos);
  RawConnection after(port_);
  after.send(post("Content-Length: 14\r\n", R"({"q": "after"})"));
  EXPECT_NE(after.read_until(R"({"text":"AFTER"})", kPatience).find(R"({"text":"AFTER"})"),
            std::string::npos);
  for (const Batch& batch : model_.batches()) {
    EXPECT_EQ(std::count(batch.sentences.begin(), batch.sentences.end(), "Hung up"), 0)
        << "decoded for a client that left";
  }
}

TEST_F(HttpHardeningTest, HeadIsAnsweredAsGetWithoutTheBody) {
  start();
  RawConnection get(port_);
  get.send("GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
  const Answer full = first_answer(get.read_until_closed(kPatience));
  ASSERT_FALSE(full.body.empty()) << full.head;

  RawConnection connection(port_);
  connection.send("HEAD /health HTTP/1.1\r\nHost: test\r\n\r\n"
                  "HEAD /nowhere HTTP/1.1\r\nHost: test\r\n\r\n"
                  "GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
  const std::string received = connection.read_until_closed(kPatience);
  const std::size_t second = received.find("HTTP/1.1 404");
  const std::size_t third = received.find("HTTP/1.1 200", 1);
  ASSERT_NE(second, std::string::npos) << received;
  ASSERT_NE(third, std::string::npos) << received;
  // Each head is followed at once by the next answer: no body bytes in between.
  const std::string head = received.substr(0, second);
  EXPECT_EQ(head.substr(0, 15), "HTTP/1.1 200 OK") << head;
  EXPECT_NE(head.find("Content-Length: " + std::to_string(full.body.size()) + "\r\n"),
            std::string::npos)
      << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n") << head;
  const std::string not_found = received.substr(second, third - second);
  EXPECT_EQ(not_found.substr(not_found.size() - 4), "\r\n\r\n") << not_found;
  EXPECT_EQ(first_answer(received.substr(third)).body, full.body);
}

TEST_F(HttpHardeningTest, HostMustBeThereOnceAndValidInHttp11) {
  start();
  const auto status = [this](const std::string& head_lines, const std::string& version) {
    RawConnection connection(port_);
    connection.send("GET /health " + version + "\r\n" + head_lines + "Connection: close\r\n\r\n");
    const Answer answer = first_answer(connection.read_until_closed(kPatience));
    return answer.status_line + (answer.status_line.find(" 400 ") != std::string::npos
                                     ? " " + answer.body
                                     : "");
  };
  EXPECT_EQ(status("", "HTTP/1.1"),
            R"(HTTP/1.1 400 Bad Request {"error":"Bad request: an HTTP/1.1 request needs a Host field"})");
  EXPECT_EQ(status("Host: a\r\nHost: b\r\n", "HTTP/1.1"),
            R"(HTTP/1.1 400 Bad Request {"error":"Bad request: more than one Host field"})");
  EXPECT_EQ(status("Host: a b\r\n", "HTTP/1.1"),
            R"(HTTP/1.1 400 Bad Request {"error":"Bad request: invalid Host field \"a b\""})");
  for (const char* invalid : {"a/b@c", "a@b", "host:80x", "[::1", "[zz]:80", "a?b"}) {
    EXPECT_EQ(status("Host: " + std::string(invalid) + "\r\n", "HTTP/1.1").substr(0, 12),
              "HTTP/1.1 400")
        << invalid;
  }
  for (const char* valid : {"example.org", "example.org:8080", "127.0.0.1:80", "[::1]:8080",
                            "[2001:db8::7]", "xn--bcher-kva.example", "host:"}) {
    EXPECT_EQ(status("Host: " + std::string(valid) + "\r\n", "HTTP/1.1"), "HTTP/1.1 200 OK")
        << valid;
  }
  // RFC 9112 §3.2: an empty Host is what a client sends for a target without authority.
  EXPECT_EQ(status("Host:\r\n", "HTTP/1.1"), "HTTP/1.1 200 OK");
  EXPECT_EQ(status("", "HTTP/1.0"), "HTTP/1.0 200 OK");
  EXPECT_EQ(status("Host: a\r\nHost: a\r\n", "HTTP/1.0").substr(0, 12), "HTTP/1.0 400");
}

TEST_F(HttpHardeningTest, AbsoluteFormTargetsAreServed) {
  start();
  RawConnection connection(port_);
  const std::string body = R"({"q": "hi"})";
  connection.send("POST http://127.0.0.1:" + std::to_string(port_) +
                  "/v1/translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Content-Length: 11\r\n\r\n" + body +
                  "GET HTTP://Example.org?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string received = connection.read_until_closed(kPatience);
  const Answer translated = first_answer(received);
  EXPECT_EQ(translated.status_line, "HTTP/1.1 200 OK") << received;
  EXPECT_NE(translated.body.find(R"({"text":"HI"})"), std::string::npos) << received;
  // No path: "/", the translation page.
  const Answer page = first_answer(translated.rest);
  EXPECT_EQ(page.status_line, "HTTP/1.1 200 OK") << translated.rest.substr(0, 300);
  EXPECT_NE(page.head.find("Content-Type: text/html"), std::string::npos) << page.head;
}

TEST_F(HttpHardeningTest, LaterMinorVersionsAreHttp11AndOtherMajorVersions505) {
  start();
  const auto answer = [this](const std::string& version) {
    RawConnection connection(port_);
    connection.send("GET /health " + version + "\r\nHost: test\r\nConnection: close\r\n\r\n");
    return first_answer(connection.read_until_closed(kPatience));
  };
  EXPECT_EQ(answer("HTTP/1.2").status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(answer("HTTP/1.9").status_line, "HTTP/1.1 200 OK");
  for (const char* version : {"HTTP/2.0", "HTTP/3.0", "HTTP/9.9", "HTTP/0.9"}) {
    const Answer refused = answer(version);
    EXPECT_EQ(refused.status_line, "HTTP/1.1 505 HTTP Version Not Supported") << version;
    EXPECT_EQ(refused.body, std::string(R"({"error":"HTTP version not supported: )") +
                                (version + 5) +
                                R"x( (this server speaks HTTP/1.1 and HTTP/1.0)"})x");
  }
}

TEST_F(HttpHardeningTest, Http10ChunkedIsAnsweredThenClosedAndGetsNoInterimAnswer) {
  start();
  RawConnection chunked(port_);
  chunked.send("POST /v1/translate HTTP/1.0\r\nContent-Type: application/json\r\n"
               "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
               "b\r\n{\"q\": \"hi\"}\r\n0\r\n\r\n" + kHealth);
  const std::string received = chunked.read_until_closed(kPatience);
  EXPECT_EQ(first_answer(received).status_line, "HTTP/1.0 200 OK") << received;
  EXPECT_EQ(first_answer(received).rest, "") << "the request after it was served";
  EXPECT_TRUE(chunked.closed());

  RawConnection expecting(port_);
  expecting.send("POST /v1/translate HTTP/1.0\r\nContent-Type: application/json\r\n"
                 "Content-Length: 11\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(expecting.read_until("\r\n\r\n", 300ms), "") << "an interim answer to HTTP/1.0";
  expecting.send(R"({"q": "hi"})");
  EXPECT_EQ(first_answer(expecting.read_until_closed(kPatience)).status_line, "HTTP/1.0 200 OK");
}

}  // namespace
}  // namespace nmt::serve
