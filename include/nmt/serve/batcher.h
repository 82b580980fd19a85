// Dynamic batching for `nmt serve`: the sentences of concurrent requests wait in one queue and
// leave it together, as one decoding batch, once serve.max_batch sentences are waiting or the
// oldest of them has waited serve.max_wait_ms, whichever comes first. Each batch holds sentences
// that want the same decoding options (a request with other options waits for a later batch; a
// sampling request never shares a batch, so that its seed alone decides its draws); a request
// larger than a batch is split over several. Results go back to each request in its own order.
//
// The model is reached only through a TranslateFn, so tests drive the batcher with a fake one.
// serve.workers threads take batches; each calls the function with one batch at a time, and
// the function must be safe to call from that many threads at once.
//
// When the function throws, only the requests it failed on get its exception: a batch of several
// requests is halved and tried again until each failure is down to one request (a ConfigError,
// decoding options refused, fails the whole batch at once: its requests share the options).
//
// Requests leave the queue undecoded when their deadline passes (TimedOut) or their client went
// away (ClientLeft), checked before each batch is taken and before a request is admitted. A batch
// already handed to the model offers it Batch::is_abandoned: once every request in it has lost
// its client the function may stop and throw ClientLeft, which all of them get (no halving).
//
// Torch-free. submit() throws Busy when the queue is full or the batcher is stopping; a
// request's future holds its results, the TranslateFn's exception, TimedOut or ClientLeft. Never
// logs.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nmt/decode/options.h"
#include "nmt/error.h"
#include "nmt/serve/options.h"
#include "nmt/serve/prometheus_metrics.h"
#include "nmt/viz/attention_page.h"

namespace nmt::serve {

using Clock = std::chrono::steady_clock;

// One translation of a sentence.
struct Hypothesis {
  std::string text;
  float score = 0.0f;  // summed log-probability (beam: divided by length^length_penalty)
};

// What a sentence gets back: its hypotheses, best first, and the attention picture of the best
// one when it was asked for and could be drawn.
struct SentenceResult {
  std::vector<Hypothesis> hypotheses;
  std::optional<viz::AttentionPicture> attention;
};

// One decoding batch as the model sees it.
struct Batch {
  std::vector<std::string> sentences;
  std::vector<bool> wants_attention;  // per sentence
  decode::SearchOptions options;
  // True once the client of every request in the batch has gone away; never for a batch with a
  // request that cannot tell. Safe to call from the decoding threads, often.
  std::function<bool()> is_abandoned;
};

// Translates a batch: one result per sentence, in order. Throws on failure (ConfigError for
// decoding options the model refuses).
using TranslateFn = std::function<std::vector<SentenceResult>(const Batch&)>;

// A request to translate.
struct Submission {
  std::vector<std::string> sentences;
  decode::SearchOptions options;
  bool wants_attention = false;  // the attention picture of the first sentence's translation
  Clock::time_point deadline;    // after it the request is dropped from the queue (TimedOut)
  // Set (by another thread) when the client went away: the request leaves the queue (ClientLeft)
  // before its sentences are decoded. Null: it stays.
  std::shared_ptr<const std::atomic<bool>> abandoned;
};

// The queue cannot take a request now: it is full, or the batcher is stopping.
class Busy : public Error {
 public:
  Busy(const std::string& what, int64_t retry_after_seconds)
      : Error(what), retry_after_seconds_(retry_after_seconds) {}
  // A guess at when the queue will have room: seconds, at least 1.
  int64_t retry_after_seconds() const { return retry_after_seconds_; }

 private:
  int64_t retry_after_seconds_;
};

// The request's deadline passed while its sentences were still waiting.
class TimedOut : public Error {
 public:
  using Error::Error;
};

// The request's client went away while its sentences were still waiting.
class ClientLeft : public Error {
 public:
  using Error::Error;
};

class Batcher {
 public:
  // Starts options.workers threads. metrics (which must outlive the batcher) counts the batches.
  Batcher(const ServeOptions& options, TranslateFn translate, ServeMetrics& metrics);
  // Stops taking requests, decodes every sentence still queued, and joins the workers.
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Queues the sentences; the future holds one result per sentence, in order. An empty request
  // is answered at once. Throws Busy when its sentences do not fit into serve.max_queue.
  [[nodiscard]] std::future<std::vector<SentenceResult>> submit(Submission submission);

  // From now on batches leave as soon as a worker is free, without waiting for others to join
  // (the server stops accepting connections and finishes what it has).
  void hurry();

  // Sentences and requests waiting (requests partly in a batch count until wholly taken).
  int64_t queued_sentences() const;
  int64_t queued_requests() const;

 private:
  struct Job;
  struct Piece;

  void work();
  void expire(Clock::time_point now);
  void settle_with_error(Job& job, std::exception_ptr error);
  int64_t sentences_like(const Job& head) const;
  std::vector<Piece> take_batch();
  void decode(const std::vector<Piece>& batch);
  void decode(const std::vector<Piece>& batch, std::size_t begin, std::size_t end);
  int64_t retry_after_seconds() const;

  ServeOptions options_;
  TranslateFn translate_;
  ServeMetrics& metrics_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Job>> queue_;
  int64_t queued_sentences_ = 0;
  double seconds_per_sentence_ = 0.0;  // moving average over recent batches, for Retry-After
  bool is_hurried_ = false;
  bool is_stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace nmt::serve
