#include "nmt/serve/batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "fake_model.h"

namespace nmt::serve {
namespace {

using namespace std::chrono_literals;
using testing::FakeModel;
using testing::upper;

ServeOptions options_with(int64_t max_batch, int64_t max_wait_ms, int64_t max_queue = 2048) {
  ServeOptions options;
  options.max_batch = max_batch;
  options.max_wait_ms = max_wait_ms;
  options.max_queue = max_queue;
  options.max_sentences = std::min<int64_t>(options.max_sentences, max_queue);
  return options;
}

Submission submission(std::vector<std::string> sentences,
                      decode::SearchOptions options = {},
                      bool wants_attention = false) {
  return {std::move(sentences), options, wants_attention, Clock::now() + 30s, nullptr};
}

std::vector<std::string> texts(const std::vector<SentenceResult>& results) {
  std::vector<std::string> out;
  for (const SentenceResult& result : results) out.push_back(result.hypotheses.at(0).text);
  return out;
}

TEST(BatcherTest, JoinsConcurrentRequestsIntoOneBatch) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/8, /*max_wait_ms=*/300), model.function(), metrics);
  auto a = batcher.submit(submission({"a1", "a2"}));
  auto b = batcher.submit(submission({"b1", "b2", "b3"}));
  auto c = batcher.submit(submission({"c1"}));
  EXPECT_EQ(texts(a.get()), (std::vector<std::string>{"A1", "A2"}));
  EXPECT_EQ(texts(b.get()), (std::vector<std::string>{"B1", "B2", "B3"}));
  EXPECT_EQ(texts(c.get()), (std::vector<std::string>{"C1"}));
  ASSERT_EQ(model.batches().size(), 1u);
  EXPECT_EQ(model.batches()[0].sentences,
            (std::vector<std::string>{"a1", "a2", "b1", "b2", "b3", "c1"}));
}

TEST(BatcherTest, ABatchLeavesAsSoonAsItIsFull) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/4, /*max_wait_ms=*/60000), model.function(), metrics);
  const auto start = Clock::now();
  auto a = batcher.submit(submission({"a", "b"}));
  auto b = batcher.submit(submission({"c", "d"}));
  ASSERT_EQ(b.wait_for(10s), std::future_status::ready) << "a full batch waited for max_wait_ms";
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_EQ(texts(a.get()), (std::vector<std::string>{"A", "B"}));
}

TEST(BatcherTest, ABatchThatIsNotFullLeavesAfterMaxWait) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/100, /*max_wait_ms=*/80), model.function(), metrics);
  const auto start = Clock::now();
  auto a = batcher.submit(submission({"alone"}));
  ASSERT_EQ(a.wait_for(10s), std::future_status::ready);
  EXPECT_GE(Clock::now() - start, 80ms) << "it left before max_wait_ms";
  EXPECT_EQ(texts(a.get()), (std::vector<std::string>{"ALONE"}));
}

TEST(BatcherTest, ARequestLargerThanABatchIsSplitAndReassembledInOrder) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/4, /*max_wait_ms=*/0), model.function(), metrics);
  std::vector<std::string> sentences;
  for (int i = 0; i < 10; ++i) sentences.push_back("s" + std::to_string(i));
  const auto results = batcher.submit(submission(sentences)).get();
  std::vector<std::string> expected;
  for (const std::string& sentence : sentences) expected.push_back(upper(sentence));
  EXPECT_EQ(texts(results), expected);
  std::vector<std::size_t> sizes;
  for (const Batch& batch : model.batches()) sizes.push_back(batch.sentences.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 4, 2}));
}

TEST(BatcherTest, RequestsWithDifferentOptionsNeverShareABatch) {
  FakeModel model;
  ServeMetrics metrics;
  model.close();  // the first batch waits inside the model while the others queue
  Batcher batcher(options_with(/*max_batch=*/16, /*max_wait_ms=*/0), model.function(), metrics);
  auto first = batcher.submit(submission({"first"}));
  ASSERT_TRUE(model.wait_for_batches(1));
  decode::SearchOptions beam;
  beam.strategy = decode::Strategy::kBeam;
  beam.n_best = 2;
  auto greedy_a = batcher.submit(submission({"g1"}));
  auto beam_a = batcher.submit(submission({"b1"}, beam));
  auto greedy_b = batcher.submit(submission({"g2"}));
  auto beam_b = batcher.submit(submission({"b2"}, beam));
  model.open();
  EXPECT_EQ(texts(greedy_b.get()), (std::vector<std::string>{"G2"}));
  const auto beam_results = beam_b.get();
  ASSERT_EQ(beam_results.at(0).hypotheses.size(), 2u);
  EXPECT_EQ(beam_results[0].hypotheses[1].text, "B2 #2");
  const auto batches = model.batches();
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[1].sentences, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(batches[1].options.strategy, decode::Strategy::kGreedy);
  EXPECT_EQ(batches[2].sentences, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(batches[2].options.strategy, decode::Strategy::kBeam);
}

TEST(BatcherTest, ARequestDifferingInAnyDecodingFieldGetsABatchOfItsOwn) {
  // One change per field of SearchOptions: the batcher compares them all (decode/options.h).
  const std::vector<std::pair<const char*, void (*)(decode::SearchOptions&)>> changes = {
      {"strategy", [](decode::SearchOptions& o) { o.strategy = decode::Strategy::kBeam; }},
      {"beam_size", [](decode::SearchOptions& o) { o.beam_size = 4; }},
      {"length_penalty", [](decode::SearchOptions& o) { o.length_penalty = 0.6; }},
      {"n_best", [](decode::SearchOptions& o) { o.n_best = 2; }},
      {"beam_stop", [](decode::SearchOptions& o) { o.beam_stop = decode::BeamStop::kBest; }},
      {"max_len", [](decode::SearchOptions& o) { o.max_len = 7; }},
      {"temperature", [](decode::SearchOptions& o) { o.temperature = 0.5; }},
      {"top_k", [](decode::SearchOptions& o) { o.top_k = 3; }},
      {"top_p", [](decode::SearchOptions& o) { o.top_p = 0.9; }},
      {"seed", [](decode::SearchOptions& o) { o.seed = 7; }},
      {"batch_size", [](decode::SearchOptions& o) { o.batch_size = 8; }},
      {"translators", [](decode::SearchOptions& o) { o.translators = 2; }},
      {"threads", [](decode::SearchOptions& o) { o.threads = 2; }},
      {"precision", [](decode::SearchOptions& o) { o.precision = decode::Precision::kInt8; }},
      {"target_lang", [](decode::SearchOptions& o) { o.target_lang = "spa"; }},
  };
  for (const auto& [field, change] : changes) {
    FakeModel model;
    ServeMetrics metrics;
    model.close();
    Batcher batcher(options_with(/*max_batch=*/16, /*max_wait_ms=*/0), model.function(), metrics);
    auto first = batcher.submit(submission({"first"}));
    ASSERT_TRUE(model.wait_for_batches(1));
    decode::SearchOptions changed;
    change(changed);
    EXPECT_NE(changed, decode::SearchOptions{}) << field;
    auto plain = batcher.submit(submission({"plain"}));
    auto other = batcher.submit(submission({"other"}, changed));
    model.open();
    other.get();
    EXPECT_EQ(model.batches().size(), 3u) << "requests differing in " << field << " shared a batch";
  }
}

TEST(BatcherTest, SamplingRequestsKeepToThemselves) {
  FakeModel model;
  ServeMetrics metrics;
  model.close();
  Batcher batcher(options_with(/*max_batch=*/16, /*max_wait_ms=*/0), model.function(), metrics);
  auto first = batcher.submit(submission({"first"}));
  ASSERT_TRUE(model.wait_for_batches(1));
  decode::SearchOptions sample;
  sample.strategy = decode::Strategy::kSample;
  auto a = batcher.submit(submission({"a1", "a2"}, sample));
  auto b = batcher.submit(submission({"b1"}, sample));
  model.open();
  b.get();
  const auto batches = model.batches();
  ASSERT_EQ(batches.size(), 3u) << "two sampling requests with one seed shared a batch";
  EXPECT_EQ(batches[1].sentences, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(batches[2].sentences, (std::vector<std::string>{"b1"}));
}

TEST(BatcherTest, EveryCallerGetsItsOwnSentencesBackUnderConcurrency) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/16, /*max_wait_ms=*/2), model.function(), metrics);
  constexpr int kThreads = 12, kRequests = 25;
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      for (int r = 0; r < kRequests; ++r) {
        std::vector<std::string> sentences;
        for (int s = 0; s <= (t + r) % 5; ++s) {
          sentences.push_back("t" + std::to_string(t) + "r" + std::to_string(r) + "s" +
                              std::to_string(s));
        }
        const auto results = batcher.submit(submission(sentences)).get();
        std::vector<std::string> expected;
        for (const std::string& sentence : sentences) expected.push_back(upper(sentence));
        if (texts(results) != expected) ++wrong;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(wrong, 0);
  std::size_t sentences = 0, largest = 0;
  for (const Batch& batch : model.batches()) {
    sentences += batch.sentences.size();
    largest = std::max(largest, batch.sentences.size());
    EXPECT_LE(batch.sentences.size(), 16u);
  }
  EXPECT_EQ(sentences, 12u * 25u * 3u) << "every sentence decoded exactly once";
  EXPECT_GT(largest, 5u) << "no batch held sentences of several requests";
}

TEST(BatcherTest, AFullQueueRefusesWithRetryAfter) {
  FakeModel model;
  ServeMetrics metrics;
  model.close();
  Batcher batcher(options_with(/*max_batch=*/2, /*max_wait_ms=*/0, /*max_queue=*/4),
                  model.function(), metrics);
  auto busy = batcher.submit(submission({"a", "b"}));
  ASSERT_TRUE(model.wait_for_batches(1));  // taken out of the queue, decoding
  auto queued = batcher.submit(submission({"c", "d", "e"}));
  EXPECT_EQ(batcher.queued_sentences(), 3);
  EXPECT_EQ(batcher.queued_requests(), 1);
  try {
    (void)batcher.submit(submission({"f", "g"}));
    FAIL() << "a request beyond serve.max_queue was queued";
  } catch (const Busy& error) {
    EXPECT_EQ(std::string(error.what()),
              "Server busy: 3 sentences are waiting and this request's 2 would exceed "
              "serve.max_queue (4)");
    EXPECT_GE(error.retry_after_seconds(), 1);
    EXPECT_LE(error.retry_after_seconds(), 60);
  }
  auto fits = batcher.submit(submission({"h"}));
  model.open();
  EXPECT_EQ(texts(queued.get()), (std::vector<std::string>{"C", "D", "E"}));
  EXPECT_EQ(texts(fits.get()), (std::vector<std::string>{"H"}));
}

TEST(BatcherTest, ARequestPastItsDeadlineLeavesTheQueueUndecoded) {
  FakeModel model;
  ServeMetrics metrics;
  model.close();
  Batcher batcher(options_with(/*max_batch=*/2, /*max_wait_ms=*/0), model.function(), metrics);
  auto busy = batcher.submit(submission({"a", "b"}));
  ASSERT_TRUE(model.wait_for_batches(1));
  auto late = batcher.submit({{"too late"}, {}, false, Clock::now() + 20ms, nullptr});
  std::this_thread::sleep_for(50ms);
  model.open();
  EXPECT_THROW(late.get(), TimedOut);
  busy.get();
  for (const Batch& batch : model.batches()) {
    EXPECT_EQ(std::count(batch.sentences.begin(), batch.sentences.end(), "too late"), 0);
  }
  EXPECT_EQ(batcher.queued_sentences(), 0);
}

TEST(BatcherTest, ARequestWhoseClientLeftLeavesTheQueueUndecodedAndFreesItsRoom) {
  FakeModel model;
  ServeMetrics metrics;
  model.close();
  ServeOptions options = options_with(/*max_batch=*/2, /*max_wait_ms=*/0);
  options.max_queue = 3;
  Batcher batcher(options, model.function(), metrics);
  auto busy = batcher.submit(submission({"a", "b"}));
  ASSERT_TRUE(model.wait_for_batches(1));
  const auto left = std::make_shared<std::atomic<bool>>(false);
  Submission leaving = submission({"gone 1", "gone 2", "gone 3"});
  leaving.abandoned = left;
  auto abandoned = batcher.submit(std::move(leaving));
  EXPECT_THROW((void)batcher.submit(submission({"c"})), Busy) << "the queue is full";
  left->store(true);
  auto next = batcher.submit(submission({"c"}));  // the room the client left is free
  model.open();
  EXPECT_THROW(abandoned.get(), ClientLeft);
  EXPECT_EQ(texts(next.get()), std::vector<std::string>{"C"});
  busy.get();
  for (const Batch& batch : model.batches()) {
    for (const std::string& sentence : batch.sentences) EXPECT_EQ(sentence.rfind("gone", 0), std::string::npos);
  }
  EXPECT_EQ(batcher.queued_sentences(), 0);
}

// Issue 66: 20 clients that sent costly requests and hung up kept the decoder 30 s.
TEST(BatcherTest, ABatchWhoseClientsAllLeftMayStopAndAllItsRequestsGetClientLeft) {
  std::atomic<int> calls{0};
  std::atomic<bool> went_on_with_one_left{false};
  std::atomic<bool> went_on_with_one_unknown{false};
  const auto a_left = std::make_shared<std::atomic<bool>>(false);
  const auto b_left = std::make_shared<std::atomic<bool>>(false);
  const auto d_left = std::make_shared<std::atomic<bool>>(false);
  const TranslateFn model = [&](const Batch& batch) -> std::vector<SentenceResult> {
    ++calls;
    if (batch.sentences.front() == "a1") {
      a_left->store(true);
      went_on_with_one_left = !batch.is_abandoned();
      b_left->store(true);
      for (int step = 0; step < 5000 && !batch.is_abandoned(); ++step) {
        std::this_thread::sleep_for(1ms);
      }
      if (batch.is_abandoned()) throw ClientLeft("stopped");
    } else {
      d_left->store(true);
      went_on_with_one_unknown = !batch.is_abandoned();
    }
    return std::vector<SentenceResult>(batch.sentences.size(), SentenceResult{{{"x", 0.0f}}, {}});
  };
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/3, /*max_wait_ms=*/200), model, metrics);
  Submission a = submission({"a1", "a2"});
  a.abandoned = a_left;
  Submission b = submission({"b1"});
  b.abandoned = b_left;
  auto a_result = batcher.submit(std::move(a));
  auto b_result = batcher.submit(std::move(b));
  EXPECT_THROW(a_result.get(), ClientLeft);
  EXPECT_THROW(b_result.get(), ClientLeft);
  EXPECT_TRUE(went_on_with_one_left);
  EXPECT_EQ(calls.load(), 1) << "not halved and tried again";
  // A request that cannot tell whether its client left (no flag) keeps its batch going.
  Submission d = submission({"d"});
  d.abandoned = d_left;
  auto c_result = batcher.submit(submission({"c"}));
  auto d_result = batcher.submit(std::move(d));
  EXPECT_EQ(texts(c_result.get()), std::vector<std::string>{"x"});
  EXPECT_EQ(texts(d_result.get()), std::vector<std::string>{"x"});
  EXPECT_TRUE(went_on_with_one_unknown);
}

TEST(BatcherTest, AFailedBatchFailsEachOfItsRequests) {
  FakeModel model;
  ServeMetrics metrics;
  model.fail_with(std::make_exception_ptr(ConfigError("n_best: expected at most beam_size (1)")));
  Batcher batcher(options_with(/*max_batch=*/8, /*max_wait_ms=*/100), model.function(), metrics);
  auto a = batcher.submit(submission({"a"}));
  auto b = batcher.submit(submission({"b", "c"}));
  for (auto* future : {&a, &b}) {
    try {
      future->get();
      FAIL() << "a failed batch gave results";
    } catch (const ConfigError& error) {
      EXPECT_EQ(std::string(error.what()), "n_best: expected at most beam_size (1)");
    }
  }
  // The batcher goes on with the next batch.
  model.fail_with(nullptr);
  EXPECT_EQ(texts(batcher.submit(submission({"d"})).get()), (std::vector<std::string>{"D"}));
}

TEST(BatcherTest, ASentenceTheModelFailsOnFailsOnlyItsOwnRequest) {
  FakeModel model;
  ServeMetrics metrics;
  model.fail_on("poison", std::make_exception_ptr(std::runtime_error("probabilities are NaN")));
  Batcher batcher(options_with(/*max_batch=*/16, /*max_wait_ms=*/200), model.function(), metrics);
  auto a = batcher.submit(submission({"a1", "a2"}));
  auto poisoned = batcher.submit(submission({"b1", "poison"}));
  auto c = batcher.submit(submission({"c1"}));
  auto d = batcher.submit(submission({"d1", "d2", "d3"}));
  EXPECT_EQ(texts(a.get()), (std::vector<std::string>{"A1", "A2"}));
  EXPECT_EQ(texts(c.get()), (std::vector<std::string>{"C1"}));
  EXPECT_EQ(texts(d.get()), (std::vector<std::string>{"D1", "D2", "D3"}));
  try {
    poisoned.get();
    FAIL() << "the failing request gave results";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "probabilities are NaN");
  }
  const auto batches = model.batches();
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches[0].sentences,
            (std::vector<std::string>{"a1", "a2", "b1", "poison", "c1", "d1", "d2", "d3"}))
      << "the four requests shared a batch first";
  EXPECT_LE(batches.size(), 7u) << "more than 2 * requests - 1 tries";
  const std::string text = metrics.render({});
  EXPECT_NE(text.find("nmt_sentences_total 6\n"), std::string::npos)
      << "only the translated sentences count\n"
      << text;
}

TEST(BatcherTest, StoppingDecodesEverythingStillQueuedAtOnce) {
  FakeModel model;
  ServeMetrics metrics;
  std::vector<std::future<std::vector<SentenceResult>>> futures;
  const auto start = Clock::now();
  {
    Batcher batcher(options_with(/*max_batch=*/100, /*max_wait_ms=*/60000), model.function(),
                    metrics);
    for (int i = 0; i < 5; ++i) futures.push_back(batcher.submit(submission({"x", "y"})));
  }
  EXPECT_LT(Clock::now() - start, 10s) << "stopping waited for max_wait_ms";
  for (auto& future : futures) {
    ASSERT_EQ(future.wait_for(0s), std::future_status::ready);
    EXPECT_EQ(texts(future.get()), (std::vector<std::string>{"X", "Y"}));
  }
}

TEST(BatcherTest, HurryLetsTheQueueLeaveWithoutWaiting) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/100, /*max_wait_ms=*/60000), model.function(),
                  metrics);
  auto a = batcher.submit(submission({"a"}));
  EXPECT_EQ(a.wait_for(100ms), std::future_status::timeout);
  batcher.hurry();
  ASSERT_EQ(a.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(texts(a.get()), (std::vector<std::string>{"A"}));
}

TEST(BatcherTest, AttentionIsAskedForTheFirstSentenceOfARequestOnly) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/8, /*max_wait_ms=*/200), model.function(), metrics);
  auto plain = batcher.submit(submission({"p1", "p2"}));
  auto drawn = batcher.submit(submission({"d1", "d2"}, {}, /*wants_attention=*/true));
  const auto results = drawn.get();
  plain.get();
  ASSERT_EQ(model.batches().size(), 1u);
  EXPECT_EQ(model.batches()[0].wants_attention, (std::vector<bool>{false, false, true, false}));
  ASSERT_TRUE(results[0].attention.has_value());
  EXPECT_EQ(results[0].attention->source_text, "d1");
  EXPECT_FALSE(results[1].attention.has_value());
}

TEST(BatcherTest, AnEmptyRequestIsAnsweredAtOnce) {
  FakeModel model;
  ServeMetrics metrics;
  Batcher batcher(options_with(/*max_batch=*/8, /*max_wait_ms=*/60000), model.function(), metrics);
  auto empty = batcher.submit(submission({}));
  ASSERT_EQ(empty.wait_for(0s), std::future_status::ready);
  EXPECT_TRUE(empty.get().empty());
  EXPECT_TRUE(model.batches().empty());
}

TEST(BatcherTest, BatchesAreCountedInTheMetrics) {
  FakeModel model;
  ServeMetrics metrics;
  {
    Batcher batcher(options_with(/*max_batch=*/3, /*max_wait_ms=*/0), model.function(), metrics);
    batcher.submit(submission({"a", "b", "c", "d"})).get();
  }
  const std::string text = metrics.render({});
  EXPECT_NE(text.find("nmt_sentences_total 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_batch_sentences_count 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_batch_sentences_sum 4\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace nmt::serve
