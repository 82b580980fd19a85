#include "nmt/serve/batcher.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

namespace nmt::serve {

struct Batcher::Job {
  std::vector<std::string> sentences;
  decode::SearchOptions options;
  bool wants_attention = false;
  Clock::time_point enqueued;
  Clock::time_point deadline;
  std::shared_ptr<const std::atomic<bool>> abandoned;
  std::size_t next = 0;      // first sentence not yet taken into a batch
  std::size_t answered = 0;  // sentences whose results are in
  std::vector<SentenceResult> results;
  std::promise<std::vector<SentenceResult>> promise;
  bool is_settled = false;  // the promise has its value or error
};

// A run of one job's sentences inside a batch.
struct Batcher::Piece {
  std::shared_ptr<Job> job;
  std::size_t first = 0;
  std::size_t count = 0;
};

Batcher::Batcher(const ServeOptions& options, TranslateFn translate, ServeMetrics& metrics)
    : options_(options), translate_(std::move(translate)), metrics_(metrics) {
  for (int64_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

Batcher::~Batcher() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    is_stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::future<std::vector<SentenceResult>> Batcher::submit(Submission submission) {
  auto job = std::make_shared<Job>();
  auto future = job->promise.get_future();
  if (submission.sentences.empty()) {
    job->promise.set_value({});
    return future;
  }
  const auto count = static_cast<int64_t>(submission.sentences.size());
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (is_stopping_) throw Busy("the server is stopping", 1);
    expire(Clock::now());  // requests nobody waits for do not hold the queue's room
    if (queued_sentences_ + count > options_.max_queue) {
      throw Busy("Server busy: " + std::to_string(queued_sentences_) +
                     " sentences are waiting and this request's " + std::to_string(count) +
                     " would exceed serve.max_queue (" + std::to_string(options_.max_queue) + ")",
                 retry_after_seconds());
    }
    job->results.resize(submission.sentences.size());
    job->sentences = std::move(submission.sentences);
    job->options = submission.options;
    job->wants_attention = submission.wants_attention;
    job->enqueued = Clock::now();
    job->deadline = submission.deadline;
    job->abandoned = std::move(submission.abandoned);
    queue_.push_back(std::move(job));
    queued_sentences_ += count;
  }
  changed_.notify_all();
  return future;
}

void Batcher::hurry() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    is_hurried_ = true;
  }
  changed_.notify_all();
}

int64_t Batcher::queued_sentences() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return queued_sentences_;
}

int64_t Batcher::queued_requests() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(queue_.size());
}

void Batcher::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return !queue_.empty() || is_stopping_; });
    if (queue_.empty()) return;  // stopping, and nothing is left
    expire(Clock::now());
    if (queue_.empty()) continue;
    const Job& head = *queue_.front();
    const Clock::time_point leave = head.enqueued + std::chrono::milliseconds(options_.max_wait_ms);
    const bool is_full = sentences_like(head) >= options_.max_batch;
    if (!is_full && !is_hurried_ && !is_stopping_ && Clock::now() < leave) {
      changed_.wait_until(lock, leave);  // others may join before it leaves
      continue;
    }
    const std::vector<Piece> batch = take_batch();
    lock.unlock();
    decode(batch);
    lock.lock();
  }
}

// Requests whose deadline has passed or whose client went away leave the queue unanswered by the
// model: nobody waits for them.
void Batcher::expire(Clock::time_point now) {
  for (std::size_t i = 0; i < queue_.size();) {
    Job& job = *queue_[i];
    const bool has_left = job.abandoned && job.abandoned->load();
    if (job.deadline > now && !has_left) {
      ++i;
      continue;
    }
    queued_sentences_ -= static_cast<int64_t>(job.sentences.size() - job.next);
    job.next = job.sentences.size();
    if (!job.is_settled) {
      job.is_settled = true;
      job.promise.set_exception(
          has_left ? std::make_exception_ptr(ClientLeft("the client went away"))
                   : std::make_exception_ptr(
                         TimedOut("the request waited longer than serve.timeout_ms (" +
                                  std::to_string(options_.timeout_ms) + " ms)")));
    }
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void Batcher::settle_with_error(Job& job, std::exception_ptr error) {
  if (job.is_settled) return;
  job.is_settled = true;
  job.promise.set_exception(std::move(error));
  // Its sentences still queued would be decoded for nobody.
  const auto it =
      std::find_if(queue_.begin(), queue_.end(),
                   [&job](const std::shared_ptr<Job>& queued) { return queued.get() == &job; });
  if (it == queue_.end()) return;
  queued_sentences_ -= static_cast<int64_t>(job.sentences.size() - job.next);
  job.next = job.sentences.size();
  queue_.erase(it);
}

// A sampling request keeps to itself: its seed must give the same draws whatever else is queued.
int64_t Batcher::sentences_like(const Job& head) const {
  int64_t count = 0;
  for (const std::shared_ptr<Job>& job : queue_) {
    const bool joins = job.get() == &head || (head.options.strategy != decode::Strategy::kSample &&
                                              job->options == head.options);
    if (joins) count += static_cast<int64_t>(job->sentences.size() - job->next);
    if (count >= options_.max_batch) break;
  }
  return count;
}

std::vector<Batcher::Piece> Batcher::take_batch() {
  const std::shared_ptr<Job> head = queue_.front();
  const auto capacity = static_cast<std::size_t>(options_.max_batch);
  std::vector<Piece> batch;
  std::size_t taken = 0;
  for (auto it = queue_.begin(); it != queue_.end() && taken < capacity;) {
    Job& job = **it;
    const bool joins = *it == head || (head->options.strategy != decode::Strategy::kSample &&
                                       job.options == head->options);
    if (!joins) {
      ++it;
      continue;
    }
    const std::size_t count = std::min(job.sentences.size() - job.next, capacity - taken);
    batch.push_back({*it, job.next, count});
    job.next += count;
    taken += count;
    it = job.next == job.sentences.size() ? queue_.erase(it) : it + 1;
  }
  queued_sentences_ -= static_cast<int64_t>(taken);
  return batch;
}

void Batcher::decode(const std::vector<Piece>& pieces) { decode(pieces, 0, pieces.size()); }

// A failure is the whole batch's only when the decoding options (which its requests share) are
// refused; any other may be one sentence's (a NaN in its sampling, a token the model cannot take),
// so the batch is halved until each failure is down to one request, and the others are answered.
// One failing request among n costs about 2 log2(n) more calls; a model that fails every call
// costs 2n - 1 in all.
namespace {

// Batch::is_abandoned for the jobs' flags: all set, with none missing.
std::function<bool()> every_client_left(std::vector<std::shared_ptr<const std::atomic<bool>>> left) {
  const bool can_tell =
      std::all_of(left.begin(), left.end(), [](const auto& flag) { return flag != nullptr; });
  if (!can_tell) return [] { return false; };
  return [left = std::move(left)] {
    return std::all_of(left.begin(), left.end(), [](const auto& flag) { return flag->load(); });
  };
}

}  // namespace

void Batcher::decode(const std::vector<Piece>& pieces, std::size_t begin, std::size_t end) {
  Batch batch;
  batch.options = pieces[begin].job->options;
  std::vector<std::shared_ptr<const std::atomic<bool>>> left;
  for (std::size_t p = begin; p < end; ++p) left.push_back(pieces[p].job->abandoned);
  batch.is_abandoned = every_client_left(std::move(left));
  for (std::size_t p = begin; p < end; ++p) {
    const Piece& piece = pieces[p];
    for (std::size_t i = piece.first; i < piece.first + piece.count; ++i) {
      batch.sentences.push_back(piece.job->sentences[i]);
      batch.wants_attention.push_back(piece.job->wants_attention && i == 0);
    }
  }
  const auto start = Clock::now();
  std::vector<SentenceResult> results;
  std::exception_ptr error;
  bool is_batch_wide = false;
  try {
    results = translate_(batch);
    if (results.size() != batch.sentences.size()) {
      throw Error("translation: " + std::to_string(batch.sentences.size()) + " sentences gave " +
                  std::to_string(results.size()) + " results");
    }
  } catch (const ConfigError&) {
    error = std::current_exception();
    is_batch_wide = true;
  } catch (const ClientLeft&) {
    error = std::current_exception();
    is_batch_wide = true;
  } catch (...) {
    error = std::current_exception();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (error && !is_batch_wide && end - begin > 1) {
    const std::size_t middle = begin + (end - begin) / 2;
    decode(pieces, begin, middle);
    decode(pieces, middle, end);
    return;
  }
  if (!error) metrics_.count_batch(static_cast<int64_t>(batch.sentences.size()), seconds);

  const std::lock_guard<std::mutex> lock(mutex_);
  const double per_sentence = seconds / static_cast<double>(batch.sentences.size());
  seconds_per_sentence_ = seconds_per_sentence_ == 0.0
                              ? per_sentence
                              : 0.8 * seconds_per_sentence_ + 0.2 * per_sentence;
  std::size_t offset = 0;
  for (std::size_t p = begin; p < end; ++p) {
    const Piece& piece = pieces[p];
    Job& job = *piece.job;
    if (error) {
      settle_with_error(job, error);
    } else if (!job.is_settled) {
      std::move(results.begin() + static_cast<std::ptrdiff_t>(offset),
                results.begin() + static_cast<std::ptrdiff_t>(offset + piece.count),
                job.results.begin() + static_cast<std::ptrdiff_t>(piece.first));
      job.answered += piece.count;
      if (job.answered == job.sentences.size()) {
        job.is_settled = true;
        job.promise.set_value(std::move(job.results));
      }
    }
    offset += piece.count;
  }
}

// The time the queue ahead needs at the recent pace, between 1 and 60 seconds.
int64_t Batcher::retry_after_seconds() const {
  const double seconds = static_cast<double>(queued_sentences_) * seconds_per_sentence_ /
                         static_cast<double>(options_.workers);
  return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(seconds)), 1, 60);
}

}  // namespace nmt::serve
