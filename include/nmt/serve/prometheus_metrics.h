// What `nmt serve` has done, for GET /metrics in Prometheus' text exposition format (0.0.4):
//
//   nmt_http_requests_total{endpoint,code}      counter: answered requests
//   nmt_http_request_duration_seconds{endpoint} histogram: time from routing to the answer
//   nmt_http_requests_in_flight                 gauge: translation requests being handled
//   nmt_sentences_total                         counter: sentences decoded
//   nmt_batch_sentences                         histogram: sentences per decoding batch
//   nmt_batch_duration_seconds                  histogram: time to decode a batch
//   nmt_queue_sentences, nmt_queue_requests     gauges: waiting for a batch
//   nmt_model_ready                             gauge: 1 once the model is loaded
//   nmt_model_info{source,target,version}       gauge: 1, the model's labels (once loaded)
//
// Endpoints outside the API are counted as endpoint="other", so that stray paths cannot grow the
// label set. Thread-safe; Torch-free; never throws except std::bad_alloc; never logs.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// A histogram with fixed upper bounds (Prometheus buckets; +Inf is implied).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // The "_bucket", "_sum" and "_count" lines of name with the extra labels (`a="b",` or "").
  std::string render(const std::string& name, const std::string& labels) const;

 private:
  std::vector<double> bounds_;
  std::vector<int64_t> counts_;  // per bound, not cumulative; the last is +Inf
  double sum_ = 0.0;
  int64_t count_ = 0;
};

// The gauges the server reads at the moment of a scrape.
struct ServeGauges {
  int64_t open_connections = 0;  // client connections open (serve.max_connections at most)
  int64_t queue_sentences = 0;
  int64_t queue_requests = 0;
  bool is_model_ready = false;
  std::string source_lang;  // model_info labels, when ready
  std::string target_lang;
  std::string version;
};

class ServeMetrics {
 public:
  ServeMetrics();

  // An answered request: its path (mapped to an endpoint label), status and duration.
  void count_request(const std::string& path, int status, double seconds);
  // A decoded batch of `sentences` that took `seconds`.
  void count_batch(int64_t sentences, double seconds);
  // A translation request starts / ends being handled (the in-flight gauge).
  void request_started() { ++in_flight_; }
  void request_finished() { --in_flight_; }

  // The exposition text, ending in a newline.
  std::string render(const ServeGauges& gauges) const;

  // The endpoint label of a request path: the API's paths, else "other".
  static std::string endpoint_of(const std::string& path);

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, int64_t> requests_;  // (endpoint, status) -> count
  std::map<std::string, Histogram> durations_;               // per endpoint
  int64_t sentences_ = 0;
  Histogram batch_sentences_;
  Histogram batch_seconds_;
  std::atomic<int64_t> in_flight_{0};
};

}  // namespace nmt::serve
