// `nmt serve` as a process, on loopback, serving a tiny run that learned a few sentence pairs by
// heart: its answers through both APIs are nmt translate's; SIGTERM with requests in flight
// answers them all and exits 0; the page, in headless Chromium, translates through the server
// (label `browser`). Skipped where the build has no nmt binary (the sanitized build).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "child_process.h"
#include "http_client.h"
#include "test_utils.h"
#include "viz/screenshot.h"

namespace nmt::serve {
namespace {

using nlohmann::json;
using testing::loopback;
using testing::post_json;

// Pairs the tiny model learns by heart.
constexpr const char* kPairs =
    "I am hungry.\tTengo hambre.\nWhere is the station?\t¿Dónde está la estación?\n"
    "Thank you.\tGracias.\nGood night.\tBuenas noches.\n";

class ServeProcessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string(NMT_BINARY).empty()) return;
    scratch_ = new testing::ScratchDir();
    const std::string pairs = scratch_->write("pairs.tsv", kPairs);
    const std::string config = scratch_->write("tiny.json", R"({
      "data": {"path": ")" + pairs + R"(", "valid_fraction": 0, "test_fraction": 0,
               "source_lang": "en", "target_lang": "es"},
      "text": {"clean": "normalize"},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre", "dropout": 0},
      "train": {"batch_size": 4, "epochs": 150, "lr": 0.003, "threads": 1, "log_every": 1000}})");
    run_dir_ = scratch_->file("run");
    train_result_ = new testing::CommandResult(
        testing::run_nmt("-q train --config '" + config + "' --out '" + run_dir_ + "'"));
  }
  static void TearDownTestSuite() {
    delete train_result_;
    delete scratch_;
  }

  void SetUp() override {
    if (std::string(NMT_BINARY).empty()) {
      GTEST_SKIP() << "this build has no nmt binary (the sanitized build has no LibTorch)";
    }
    ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  }

  // Starts `nmt serve` on a free port; returns the port once /health says the model is ready.
  int serve(const std::vector<std::string>& flags = {}) {
    std::vector<std::string> arguments = {"serve", "--model",   run_dir_, "--port",
                                          "0",     "--threads", "1"};
    arguments.insert(arguments.end(), flags.begin(), flags.end());
    log_ = scratch_->file("serve-" + std::to_string(++servers_started_) + ".log");
    process_ = std::make_unique<testing::NmtProcess>(arguments, log_);
    const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+)/)");
    for (int i = 0; i < 600; ++i) {
      std::smatch match;
      const std::string log = testing::read_file(log_);
      if (std::regex_search(log, match, listening)) {
        const int port = std::stoi(match[1]);
        if (!testing::wait_for_status(port, "/health", 200, 120)) return -1;
        return port;
      }
      if (process_->poll()) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
  }

  // What `nmt translate` prints for the sentences with the flags, line by line.
  static std::vector<std::string> translate(const std::string& flags,
                                            const std::vector<std::string>& sentences) {
    std::string arguments = "-q translate --model '" + run_dir_ + "' --threads 1 " + flags;
    for (const std::string& sentence : sentences) arguments += " '" + sentence + "'";
    const testing::CommandResult result = testing::run_nmt(arguments);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    std::vector<std::string> lines;
    std::istringstream in(result.output);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  static testing::ScratchDir* scratch_;
  static std::string run_dir_;
  static testing::CommandResult* train_result_;
  std::unique_ptr<testing::NmtProcess> process_;
  std::string log_;
  static int servers_started_;  // one log file each, also across the tests of one process
};

testing::ScratchDir* ServeProcessTest::scratch_ = nullptr;
std::string ServeProcessTest::run_dir_;
testing::CommandResult* ServeProcessTest::train_result_ = nullptr;
int ServeProcessTest::servers_started_ = 0;

TEST_F(ServeProcessTest, AnswersBothApisAsNmtTranslateDoes) {
  const int port = serve();
  ASSERT_GT(port, 0) << testing::read_file(log_);
  const std::vector<std::string> sentences = {"I am hungry.", "Thank you.", "Good night."};
  const std::vector<std::string> greedy = translate("", sentences);
  const std::vector<std::string> learned = {"Tengo hambre.", "Gracias.", "Buenas noches."};
  EXPECT_EQ(greedy, learned) << "the tiny model did not learn its pairs";

  const auto libre = post_json(port, "/translate",
                               json{{"q", sentences}, {"source", "en"}, {"target", "es"}}.dump());
  ASSERT_EQ(libre->status, 200) << libre->body;
  EXPECT_EQ(json::parse(libre->body)["translatedText"], json(greedy));
  const auto form = loopback(port).Post(
      "/translate", httplib::Params{{"q", "I am hungry."}, {"source", "en"}, {"target", "es"}});
  const json expected_form = {{"translatedText", greedy[0]}};
  EXPECT_EQ(form->body, expected_form.dump());

  // Beam search's 3-best, as nmt translate writes them: "index ||| text ||| score".
  const std::vector<std::string> moses = translate("--strategy beam --n-best 3", {sentences[0]});
  ASSERT_EQ(moses.size(), 3u);
  const auto v1 = post_json(port, "/v1/translate",
                            json{{"q", {sentences[0]}},
                                 {"strategy", "beam"},
                                 {"n_best", 3},
                                 {"scores", true},
                                 {"attention", true}}
                                .dump());
  ASSERT_EQ(v1->status, 200) << v1->body;
  const json answer = json::parse(v1->body);
  const json& hypotheses = answer["translations"][0]["hypotheses"];
  ASSERT_EQ(hypotheses.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ("0 ||| " + hypotheses[i]["text"].get<std::string>() + " ||| ",
              moses[i].substr(0, moses[i].rfind("||| ") + 4));
    if (i > 0) {
      EXPECT_LE(hypotheses[i]["score"].get<double>(), hypotheses[i - 1]["score"].get<double>());
    }
  }
  const json& attention = answer["translations"][0]["attention"];
  EXPECT_EQ(attention["kinds"][0]["id"], "cross");
  EXPECT_EQ(attention["kinds"][0]["layers"].size(), 1u);
  EXPECT_EQ(attention["kinds"][0]["layers"][0]["heads"].size(), 2u);
  EXPECT_EQ(answer["model"]["source_lang"], "en");
  EXPECT_EQ(answer["model"]["version"].get<std::string>().size(), 8u);

  // The decoder's own checks come back as 400.
  EXPECT_EQ(post_json(port, "/v1/translate", R"({"q": "Thank you.", "n_best": 2})")->body,
            R"({"error":"n_best: only beam search returns several hypotheses, got 2"})");
  EXPECT_EQ(post_json(port, "/translate", R"({"q": "x", "source": "en", "target": "fr"})")->body,
            R"j({"error":"fr is not supported (this model translates en to es)"})j");
  process_->send(SIGTERM);
  EXPECT_EQ(process_->wait(), 0) << testing::read_file(log_);
}

TEST_F(ServeProcessTest, SigtermAnswersEveryRequestInFlightAndExitsZero) {
  // Batches leave only when the server stops: every request is still queued at SIGTERM.
  const int port = serve({"--max-wait-ms", "600000", "--max-batch", "1000"});
  ASSERT_GT(port, 0) << testing::read_file(log_);
  const std::vector<std::string> sentences = {"I am hungry.", "Where is the station?", "Thank you.",
                                              "Good night."};
  std::vector<std::future<httplib::Result>> requests;
  for (int i = 0; i < 8; ++i) {
    requests.push_back(std::async(std::launch::async, [&, i] {
      const json q = {sentences[i % 4], sentences[(i + 1) % 4]};
      return i % 2 ? post_json(port, "/v1/translate", json{{"q", q}}.dump())
                   : post_json(port, "/translate",
                               json{{"q", q}, {"source", "en"}, {"target", "es"}}.dump());
    }));
  }
  bool are_queued = false;
  for (int i = 0; i < 600 && !are_queued; ++i) {
    const auto health = loopback(port).Get("/health");
    are_queued = health && json::parse(health->body)["queue"]["requests"] == 8;
    if (!are_queued) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(are_queued) << "the requests never reached the queue";
  process_->send(SIGTERM);
  const std::vector<std::string> expected = translate("", sentences);
  for (int i = 0; i < 8; ++i) {
    const httplib::Result result = requests[i].get();
    ASSERT_TRUE(result) << "request " << i << " got no answer";
    ASSERT_EQ(result->status, 200) << result->body;
    const json body = json::parse(result->body);
    const json& first = i % 2 ? body["translations"][0]["text"] : body["translatedText"][0];
    EXPECT_EQ(first, expected[i % 4]) << i;
  }
  const auto stopped_at = std::chrono::steady_clock::now();
  int status = -1;
  while (!process_->poll() &&
         std::chrono::steady_clock::now() - stopped_at < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(process_->poll().has_value()) << "nmt serve did not exit after SIGTERM";
  status = *process_->poll();
  EXPECT_EQ(status, 0) << testing::read_file(log_);
  const std::string log = testing::read_file(log_);
  EXPECT_NE(log.find("stopping: no new connections"), std::string::npos) << log;
  EXPECT_FALSE(loopback(port).Get("/health")) << "still listening after exit";
}

TEST_F(ServeProcessTest, ABusyPortIsAnErrorNamingIt) {
  const int port = serve();
  ASSERT_GT(port, 0) << testing::read_file(log_);
  const testing::CommandResult second =
      testing::run_command("timeout 60 '" + std::string(NMT_BINARY) + "' serve --model '" +
                           run_dir_ + "' --port " + std::to_string(port));
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_NE(
      second.output.find("nmt: error: serve: cannot listen on 127.0.0.1:" + std::to_string(port)),
      std::string::npos)
      << second.output;
  const testing::CommandResult bad =
      testing::run_command("timeout 60 '" + std::string(NMT_BINARY) + "' serve --model '" +
                           run_dir_ + "' --max-batch 0");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("serve.max_batch: expected a positive integer, got 0"),
            std::string::npos)
      << bad.output;
  process_->send(SIGINT);
  EXPECT_EQ(process_->wait(), 0);
}

TEST_F(ServeProcessTest, ThePageTranslatesInTheBrowser) {
  if (!testing::has_chromium()) {
    GTEST_SKIP() << "no " << testing::kChromium << ": apt-get install chromium";
  }
  const int port = serve();
  ASSERT_GT(port, 0) << testing::read_file(log_);
  const std::string expected = translate("--strategy beam", {"I am hungry."}).at(0);
  const std::string url = "http://127.0.0.1:" + std::to_string(port) +
                          "/?q=I%20am%20hungry.&strategy=beam&beam_size=4&n_best=3";
  // Virtual time runs only while no request is pending, so the page's own fetches finish first.
  const std::string wait = "--virtual-time-budget=20000";
  ASSERT_EQ(testing::run_chromium_at(*scratch_, "page-dom", wait + " --dump-dom", url), 0)
      << testing::read_file(scratch_->file("page-dom.log"));
  const std::string dom =
      testing::without_scripts(testing::read_file(scratch_->file("page-dom.out")));
  EXPECT_NE(
      dom.find("id=\"target\" aria-live=\"polite\">" + testing::dom_text(expected) + "</div>"),
      std::string::npos)
      << "the translation is not in the page:\n"
      << dom;
  EXPECT_EQ(testing::count(dom, "<span class=\"hyp\">"), 3u) << "the 3-best list";
  EXPECT_NE(dom.find("en → es · model "), std::string::npos) << "the model line";
  EXPECT_GT(testing::count(dom, "class=\"cell\""), 0u) << "no attention heat map";
  const auto metrics = loopback(port).Get("/metrics");
  EXPECT_NE(
      metrics->body.find("nmt_http_requests_total{endpoint=\"/v1/translate\",code=\"200\"} 1"),
      std::string::npos)
      << "the page's own request did not reach the server:\n"
      << metrics->body;

  for (const auto& [name, window] :
       {std::pair{"page-desktop", "1280,1000"}, std::pair{"page-phone", "390,844"}}) {
    const std::string png = scratch_->file(std::string(name) + ".png");
    ASSERT_EQ(testing::run_chromium_at(*scratch_, name, wait + " --screenshot='" + png + "'", url,
                                       window),
              0)
        << testing::read_file(scratch_->file(std::string(name) + ".log"));
    if (const char* keep = std::getenv("NMT_SCREENSHOT_DIR")) {
      std::filesystem::copy_file(png, std::string(keep) + "/" + name + ".png",
                                 std::filesystem::copy_options::overwrite_existing);
    }
#ifdef NMT_HAVE_PNG
    const testing::ScreenshotStats stats = testing::measure_png(png);
    ASSERT_TRUE(stats.is_read) << png;
    EXPECT_EQ(std::to_string(stats.width) + "," + std::to_string(stats.height), window);
    EXPECT_GT(stats.non_white_share, 0.03) << name << ": almost blank";
    EXPECT_GT(stats.colourful_share, 0.005) << name << ": no heat map colours";
#else
    EXPECT_GT(std::filesystem::file_size(png), 10000u) << "built without libpng: size only";
#endif
  }
  process_->send(SIGTERM);
  EXPECT_EQ(process_->wait(), 0);
}

}  // namespace
}  // namespace nmt::serve
