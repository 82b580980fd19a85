// The HTTP layer on loopback, in-process, with the fake model: round trips of both APIs, every
// limit and bad input with its status and message, API keys, the queue under load, ordering under
// concurrency, and stopping with requests in flight.
#include "nmt/serve/server.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fake_model.h"
#include "http_client.h"

namespace nmt::serve {
namespace {

using nlohmann::json;
using testing::loopback;
using testing::post_json;

ServeOptions loopback_options() {
  ServeOptions options;
  options.port = 0;
  options.max_wait_ms = 1;
  options.http_threads = 24;
  return options;
}

class ServerTest : public ::testing::Test {
 protected:
  // A server on a free port; with the fake model unless told otherwise.
  void start(const ServeOptions& options = loopback_options(),
             const std::string& api_key = "",
             bool has_model = true) {
    server_ = std::make_unique<Server>(options, api_key, [this](const std::string& line) {
      const std::lock_guard<std::mutex> lock(log_mutex_);
      log_.push_back(line);
    });
    port_ = server_->start();
    if (has_model) server_->set_model(testing::en_es_model(), model_.function());
  }
  void TearDown() override {
    model_.open();
    server_.reset();
  }

  // The lines the server logged.
  std::vector<std::string> log() {
    const std::lock_guard<std::mutex> lock(log_mutex_);
    return log_;
  }

  testing::FakeModel model_;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

// "status body" of a result, or why there is none.
std::string answer(const httplib::Result& result) {
  if (!result) return "no answer: " + httplib::to_string(result.error());
  return std::to_string(result->status) + " " + result->body;
}

TEST_F(ServerTest, LibreTranslateJsonRoundTrip) {
  start();
  const auto one =
      post_json(port_, "/translate", R"({"q": "hello world", "source": "en", "target": "es"})");
  EXPECT_EQ(answer(one), R"(200 {"translatedText":"HELLO WORLD"})");
  EXPECT_EQ(one->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(one->get_header_value("Access-Control-Allow-Origin"), "*");
  const auto list = post_json(
      port_, "/translate",
      R"({"q": ["one", "two\nthree"], "source": "auto", "target": "es", "format": "text"})");
  EXPECT_EQ(json::parse(list->body),
            json::parse(R"({"translatedText": ["ONE", "TWO\nTHREE"], "detectedLanguage":
                [{"confidence": 100.0, "language": "en"}, {"confidence": 100.0, "language": "en"}]})"));
}

TEST_F(ServerTest, LibreTranslateFormRoundTrips) {
  start();
  const auto form = loopback(port_).Post(
      "/translate", httplib::Params{{"q", "good morning"}, {"source", "en"}, {"target", "es"}});
  EXPECT_EQ(answer(form), R"(200 {"translatedText":"GOOD MORNING"})");
  const auto multipart = loopback(port_).Post(
      "/translate", httplib::MultipartFormDataItems{{"q", "night", "", ""},
                                                    {"source", "en", "", ""},
                                                    {"target", "es", "", ""},
                                                    {"alternatives", "1", "", ""}});
  EXPECT_EQ(answer(multipart), R"(200 {"alternatives":["NIGHT #2"],"translatedText":"NIGHT"})");
  const auto query = loopback(port_).Post("/translate?q=bye&source=en&target=es", "", "");
  EXPECT_EQ(answer(query), R"(200 {"translatedText":"BYE"})");
}

TEST_F(ServerTest, V1RoundTripWithNBestScoresAndAttention) {
  start();
  const auto result = post_json(port_, "/v1/translate",
                                R"({"q": ["a", "b"], "strategy": "beam", "beam_size": 4,
                                    "n_best": 2, "scores": true, "attention": true})");
  ASSERT_EQ(result->status, 200) << result->body;
  const json body = json::parse(result->body);
  EXPECT_EQ(body["translations"][1], json::parse(R"({"text": "B", "score": -1.0, "hypotheses":
                            [{"text": "B", "score": -1.0}, {"text": "B #2", "score": -2.0}]})"));
  EXPECT_EQ(body["translations"][0]["attention"]["target"], json::parse(R"(["<SOS>", "A"])"));
  EXPECT_EQ(body["model"]["version"], "0badc0de");
  EXPECT_EQ(body["options"]["beam_size"], 4);
  ASSERT_EQ(model_.batches().size(), 1u);
  EXPECT_EQ(model_.batches()[0].options.strategy, decode::Strategy::kBeam);
  EXPECT_EQ(model_.batches()[0].options.beam_size, 4);
}

TEST_F(ServerTest, LanguagesHealthAndMetrics) {
  start();
  EXPECT_EQ(answer(loopback(port_).Get("/languages")),
            R"(200 [{"code":"en","name":"English","targets":["es"]},)"
            R"({"code":"es","name":"Spanish","targets":[]}])");
  const auto health = loopback(port_).Get("/health");
  ASSERT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["status"], "ok");
  EXPECT_EQ(json::parse(health->body)["model"]["source_lang"], "en");
  EXPECT_EQ(json::parse(health->body)["queue"], json::parse(R"({"sentences": 0, "requests": 0})"));
  post_json(port_, "/translate", R"({"q": "x", "source": "en", "target": "es"})");
  post_json(port_, "/translate", R"({"q": "x", "source": "fr", "target": "es"})");
  const auto metrics = loopback(port_).Get("/metrics");
  ASSERT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  for (const char* line :
       {"nmt_http_requests_total{endpoint=\"/translate\",code=\"200\"} 1\n",
        "nmt_http_requests_total{endpoint=\"/translate\",code=\"400\"} 1\n",
        "nmt_http_requests_total{endpoint=\"/health\",code=\"200\"} 1\n", "nmt_sentences_total 1\n",
        "nmt_model_ready 1\n",
        "nmt_model_info{source=\"en\",target=\"es\",version=\"0badc0de\"} 1\n"}) {
    EXPECT_NE(metrics->body.find(line), std::string::npos) << line << metrics->body;
  }
}

TEST_F(ServerTest, WhileTheModelLoadsTheServerSaysSo) {
  start(loopback_options(), "", /*has_model=*/false);
  const auto health = loopback(port_).Get("/health");
  EXPECT_EQ(answer(health), R"(503 {"model":null,"status":"loading"})");
  const auto translate =
      post_json(port_, "/translate", R"({"q": "x", "source": "en", "target": "es"})");
  EXPECT_EQ(answer(translate), R"(503 {"error":"the model is still loading"})");
  EXPECT_EQ(translate->get_header_value("Retry-After"), "1");
  EXPECT_EQ(loopback(port_).Get("/languages")->status, 503);
  EXPECT_EQ(loopback(port_).Get("/")->status, 200) << "the page is there before the model";
  server_->set_model(testing::en_es_model(), model_.function());
  EXPECT_EQ(loopback(port_).Get("/health")->status, 200);
}

TEST_F(ServerTest, BadInputGetsItsStatusAndMessage) {
  ServeOptions options = loopback_options();
  options.max_sentences = 2;
  options.max_chars = 5;
  options.max_body_bytes = 200;
  start(options);
  const auto expect = [&](const httplib::Result& result, const std::string& expected) {
    EXPECT_EQ(answer(result), expected);
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
  };
  expect(post_json(port_, "/translate", R"({"q": "x", )"),
         R"(400 {"error":"Failed to decode JSON object: parse error at line 1, column 12: )"
         R"(syntax error while parsing object key - unexpected end of input; expected string )"
         R"(literal"})");
  expect(post_json(port_, "/translate", "[]"), R"(400 {"error":"Invalid JSON format"})");
  expect(post_json(port_, "/translate", R"({"q": 3, "source": "en", "target": "es"})"),
         R"(400 {"error":"Invalid request: q must be a string or a list of strings"})");
  expect(post_json(port_, "/translate", R"({"q": "x", "source": "de", "target": "es"})"),
         R"j(400 {"error":"de is not supported (this model translates en to es)"})j");
  expect(
      post_json(port_, "/translate", R"({"q": ["a", "b", "c"], "source": "en", "target": "es"})"),
      R"j(400 {"error":"Invalid request: request (3) exceeds text limit (2)"})j");
  expect(post_json(port_, "/translate", R"({"q": "toolong", "source": "en", "target": "es"})"),
         R"j(400 {"error":"Invalid request: request (7) exceeds text limit (5)"})j");
  expect(post_json(port_, "/v1/translate", R"({"q": ["a", "b", "c"]})"),
         R"j(400 {"error":"q: 3 sentences, more than serve.max_sentences (2)"})j");
  expect(post_json(port_, "/v1/translate", R"({"q": "toolong"})"),
         R"j(400 {"error":"q[0]: 7 characters, more than serve.max_chars (5)"})j");
  expect(post_json(port_, "/v1/translate", R"({"q": "a", "beam_size": 99})"),
         R"(400 {"error":"beam_size: expected an integer from 1 to serve.max_beam_size (16), )"
         R"(got 99"})");
  expect(post_json(port_, "/v1/translate", "{\"q\": \"" + std::string(300, 'a') + "\"}"),
         R"j(413 {"error":"request body larger than serve.max_body_bytes (200 bytes)"})j");
  expect(loopback(port_).Get("/nope"), R"(404 {"error":"Not Found: GET /nope"})");
  expect(loopback(port_).Get("/translate"), R"(404 {"error":"Not Found: GET /translate"})");
  EXPECT_TRUE(model_.batches().empty()) << "refused requests reached the model";
}

TEST_F(ServerTest, FormBodiesAreReadUpToTheBodyLimit) {
  start();
  const auto result = loopback(port_).Post(
      "/translate", httplib::Params{{"q", std::string(4000, 'a')},
                                    {"source", "en"},
                                    {"target", "es"},
                                    {"padding", std::string(20000, 'b')}});
  EXPECT_EQ(answer(result), "200 {\"translatedText\":\"" + std::string(4000, 'A') + "\"}");
}

TEST_F(ServerTest, ApiKeysAreCheckedAsEachApiExpects) {
  start(loopback_options(), "s3cret");
  const std::string libre = R"({"q": "x", "source": "en", "target": "es")";
  EXPECT_EQ(answer(post_json(port_, "/translate", libre + "}")),
            R"(400 {"error":"Please contact the server operator to get an API key"})");
  EXPECT_EQ(answer(post_json(port_, "/translate", libre + R"(, "api_key": "nope"})")),
            R"(403 {"error":"Invalid API key"})");
  EXPECT_EQ(answer(post_json(port_, "/translate", libre + R"(, "api_key": "s3cret"})")),
            R"(200 {"translatedText":"X"})");
  const auto missing = post_json(port_, "/v1/translate", R"({"q": "x"})");
  EXPECT_EQ(missing->status, 401);
  EXPECT_EQ(missing->get_header_value("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(
      answer(
          post_json(port_, "/v1/translate", R"({"q": "x"})", {{"Authorization", "Bearer s3cret"}})),
      R"(200 {"model":{"checkpoint":"runs/tiny/best.pt","run":"runs/tiny","source_lang":"en",)"
      R"("target_lang":"es","version":"0badc0de"},"options":{"beam_size":5,"length_penalty":)"
      R"(1.0,"max_len":0,"n_best":1,"seed":23,"strategy":"greedy","temperature":1.0,"top_k":)"
      R"(0,"top_p":1.0},"translations":[{"text":"X"}]})");
  for (const char* open : {"/", "/health", "/metrics", "/languages"}) {
    EXPECT_EQ(loopback(port_).Get(open)->status, 200) << open;
  }
}

// A server past its open-file limit fails to accept (EMFILE) instead of closing an idle connection
// for the new one: serve.max_connections is lowered to what the limit leaves for sockets. In a
// child process, whose lowered hard limit cannot be raised again.
TEST(ServerLimitsTest, MaxConnectionsIsFittedToTheOpenFileLimit) {
  const auto fitted_under = [](rlim_t files) {
    const pid_t child = fork();
    if (child == 0) {
      const rlimit limit{files, files};
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(255);
      ServeOptions options;
      options.max_connections = 512;
      const Server server(options, "", [](const std::string&) {});
      _exit(static_cast<int>(std::min<int64_t>(server.max_connections(), 254)));
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(fitted_under(200), 200 - 64);
  EXPECT_EQ(fitted_under(64), 1);
  ServeOptions options;
  options.max_connections = 3;
  EXPECT_EQ(Server(options, "", [](const std::string&) {}).max_connections(), 3);
}

TEST_F(ServerTest, AFullQueueIs503WithRetryAfter) {
  ServeOptions options = loopback_options();
  options.max_batch = 2;
  options.max_sentences = 2;
  options.max_queue = 2;
  start(options);
  model_.close();
  const std::string two = R"({"q": ["a", "b"], "source": "en", "target": "es"})";
  auto decoding =
      std::async(std::launch::async, [&] { return answer(post_json(port_, "/translate", two)); });
  ASSERT_TRUE(model_.wait_for_batches(1));
  auto queued =
      std::async(std::launch::async, [&] { return answer(post_json(port_, "/translate", two)); });
  for (int i = 0; i < 500; ++i) {
    const auto health = loopback(port_).Get("/health");
    if (json::parse(health->body)["queue"]["sentences"] == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto refused =
      post_json(port_, "/translate", R"({"q": "c", "source": "en", "target": "es"})");
  EXPECT_EQ(answer(refused),
            R"(503 {"error":"Server busy: 2 sentences are waiting and this request's 1 would )"
            R"j(exceed serve.max_queue (2)"})j");
  EXPECT_GE(std::stoi(refused->get_header_value("Retry-After")), 1);
  model_.open();
  EXPECT_EQ(decoding.get(), R"(200 {"translatedText":["A","B"]})");
  EXPECT_EQ(queued.get(), R"(200 {"translatedText":["A","B"]})");
}

TEST_F(ServerTest, ARequestThatWaitsTooLongIs504) {
  ServeOptions options = loopback_options();
  options.timeout_ms = 300;
  start(options);
  model_.close();
  EXPECT_EQ(answer(post_json(port_, "/v1/translate", R"({"q": "slow"})")),
            R"j(504 {"error":"Translation did not finish within serve.timeout_ms (300 ms)"})j");
}

TEST_F(ServerTest, ModelFailuresAre500AndRefusedOptions400) {
  start();
  model_.fail_with(std::make_exception_ptr(std::runtime_error("out of memory")));
  const std::string failed =
      answer(post_json(port_, "/translate", R"({"q": "x", "source": "en", "target": "es"})"));
  EXPECT_TRUE(std::regex_match(failed, std::regex(R"(500 \{"error":"Cannot translate text: )"
                                                  R"(internal error \(request [0-9a-f]{16}\); )"
                                                  R"(the server log has the details"\})")))
      << failed;
  model_.fail_with(std::make_exception_ptr(
      ConfigError("n_best: only beam search returns several hypotheses, got 3")));
  EXPECT_EQ(answer(post_json(port_, "/v1/translate", R"({"q": "x", "n_best": 3})")),
            R"(400 {"error":"n_best: only beam search returns several hypotheses, got 3"})");
  model_.fail_with(nullptr);
  EXPECT_EQ(loopback(port_).Get("/health")->status, 200) << "the server survived";
}

TEST_F(ServerTest, ADeeplyNestedBodyIs400AndTheServerLivesOn) {
  start();
  // 200,000 levels (400 KB): serialising, copying or comparing such a value recurses once per
  // level and overflows the stack.
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::string v1 = R"({"q": "I am hungry.", "beam_size": )" + deep + "}";
  const std::string libre =
      R"({"q": "I am hungry.", "source": "en", "target": "es", "beam_size": )" + deep + "}";
  for (const auto& [path, body] :
       {std::pair<std::string, std::string>{"/v1/translate", v1}, {"/translate", libre}}) {
    EXPECT_EQ(
        answer(post_json(port_, path, body)),
        R"(400 {"error":"Failed to decode JSON object: beam_size: nested deeper than 32 levels"})")
        << path;
  }
  EXPECT_EQ(answer(post_json(port_, "/v1/translate", deep)),
            R"(400 {"error":"Failed to decode JSON object: nested deeper than 32 levels"})");
  EXPECT_EQ(loopback(port_).Get("/health")->status, 200) << "the server survived";
  EXPECT_TRUE(model_.batches().empty());
}

TEST_F(ServerTest, InternalErrorsAre500WithARequestIdAndNoDetails) {
  start();
  const std::string what =
      "probability tensor contains either `inf`, `nan` or element < 0\n"
      "Exception raised from multinomial at ../aten/src/ATen/native/Distributions.cpp:596 (most "
      "recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 "
      "(0x7f3a2b1c4d57 in /usr/lib/libc10.so)\n";
  model_.fail_with(std::make_exception_ptr(std::runtime_error(what)));
  std::set<std::string> ids;
  for (const auto& [path, body] :
       {std::pair<std::string, std::string>{"/v1/translate", R"({"q": "x"})"},
        {"/translate", R"({"q": "x", "source": "en", "target": "es"})"}}) {
    const auto result = post_json(port_, path, body);
    ASSERT_TRUE(result) << path;
    EXPECT_EQ(result->status, 500) << path;
    EXPECT_EQ(result->body.find("0x"), std::string::npos) << result->body;
    EXPECT_EQ(result->body.find("frame"), std::string::npos) << result->body;
    EXPECT_EQ(result->body.find("nan"), std::string::npos) << result->body;
    std::smatch id;
    ASSERT_TRUE(std::regex_search(result->body, id, std::regex("request ([0-9a-f]{16})")))
        << result->body;
    const std::vector<std::string> lines = log();
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "request " + id[1].str() + ": POST " + path + ": " + what)
        << "the log has the whole message under the client's id";
    ids.insert(id[1].str());
  }
  EXPECT_EQ(ids.size(), 2u) << "two errors shared an id";
  model_.fail_with(nullptr);
  EXPECT_EQ(loopback(port_).Get("/health")->status, 200) << "the server survived";
}

TEST_F(ServerTest, ATemperatureWhoseFloatIsZeroIs400) {
  start();
  EXPECT_EQ(
      answer(post_json(port_, "/v1/translate",
                       R"({"q": "I am hungry.", "strategy": "sample", "temperature": 1e-300})")),
      R"(400 {"error":"temperature: expected a number from 0.000001 to 1000, got 1e-300"})");
  EXPECT_TRUE(model_.batches().empty()) << "the model was asked to sample with it";
}

TEST_F(ServerTest, ConcurrentClientsEachGetTheirOwnSentencesBack) {
  ServeOptions options = loopback_options();
  options.max_wait_ms = 5;
  start(options);
  constexpr int kClients = 16, kRequests = 8;
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  const auto fail = [&](const std::string& what) {
    const std::lock_guard<std::mutex> lock(failures_mutex);
    failures.push_back(what);
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int r = 0; r < kRequests; ++r) {
        const std::string a = "c" + std::to_string(c) + "r" + std::to_string(r);
        const std::string b = a + "b";
        const bool is_libre = (c + r) % 2 == 0;
        const auto result =
            is_libre ? post_json(port_, "/translate",
                                 json{{"q", {a, b}}, {"source", "en"}, {"target", "es"}}.dump())
                     : post_json(port_, "/v1/translate", json{{"q", {a, b}}}.dump());
        const json expected =
            is_libre ? json{{"translatedText", {testing::upper(a), testing::upper(b)}}}
                     : json::array({{{"text", testing::upper(a)}}, {{"text", testing::upper(b)}}});
        if (!result) {
          fail(a + ": " + httplib::to_string(result.error()));
          continue;
        }
        if (result->status != 200) {
          fail(a + ": " + std::to_string(result->status) + " " + result->body);
          continue;
        }
        const json body = json::parse(result->body);
        if ((is_libre ? body : body["translations"]) != expected) fail(a + ": " + result->body);
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(failures, std::vector<std::string>{});
  std::size_t largest = 0;
  for (const Batch& batch : model_.batches()) largest = std::max(largest, batch.sentences.size());
  EXPECT_GT(largest, 2u) << "no two requests shared a batch";
}

TEST_F(ServerTest, PreflightAndPage) {
  start();
  const auto preflight = loopback(port_).Options("/v1/translate");
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Headers"),
            "Authorization, Content-Type, X-Request-Id");
  EXPECT_EQ(preflight->get_header_value("Access-Control-Expose-Headers"), "X-Request-Id");
  const auto page = loopback(port_).Get("/");
  ASSERT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("connect-src 'self'"),
            std::string::npos);
  EXPECT_NE(page->body.find("nmtAttention.show"), std::string::npos);
  EXPECT_EQ(page->body.find("http://"), std::string::npos) << "the page loads nothing";
  EXPECT_EQ(page->body.find("https://"), std::string::npos) << "the page loads nothing";
}

TEST_F(ServerTest, StoppingAnswersEveryRequestInFlight) {
  ServeOptions options = loopback_options();
  options.max_wait_ms = 60000;  // only stopping makes these batches leave
  options.max_batch = 1000;
  start(options);
  std::vector<std::future<std::string>> requests;
  for (int i = 0; i < 6; ++i) {
    requests.push_back(std::async(std::launch::async, [&, i] {
      return answer(
          post_json(port_, "/v1/translate", json{{"q", {"s" + std::to_string(i)}}}.dump()));
    }));
  }
  for (int i = 0; i < 500; ++i) {
    const auto health = loopback(port_).Get("/health");
    if (json::parse(health->body)["queue"]["requests"] == 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto start_of_stop = Clock::now();
  server_->stop();
  server_->wait();
  EXPECT_LT(Clock::now() - start_of_stop, std::chrono::seconds(20));
  for (int i = 0; i < 6; ++i) {
    const std::string result = requests[i].get();
    ASSERT_EQ(result.substr(0, 4), "200 ") << result;
    EXPECT_EQ(json::parse(result.substr(4))["translations"],
              json::parse(R"([{"text": "S)" + std::to_string(i) + R"("}])"));
  }
  EXPECT_FALSE(loopback(port_).Get("/health")) << "still accepting connections after stop";
}

TEST_F(ServerTest, APortInUseIsAnError) {
  start();
  ServeOptions options = loopback_options();
  options.port = port_;
  Server second(options, "");
  try {
    second.start();
    FAIL() << "two servers bound one port";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "serve: cannot listen on 127.0.0.1:" + std::to_string(port_) +
                  ": Address already in use (--port 0 picks a free port)");
  }
}

}  // namespace
}  // namespace nmt::serve
