#include "nmt/serve/prometheus_metrics.h"

#include <algorithm>
#include <cstdio>

namespace nmt::serve {
namespace {

// Latency buckets, from a cached greedy sentence to a long beam search under load.
const std::vector<double> kSecondsBounds = {0.005, 0.01, 0.025, 0.05, 0.1,  0.25,
                                            0.5,   1.0,  2.5,   5.0,  10.0, 30.0};
const std::vector<double> kSentencesBounds = {1, 2, 4, 8, 16, 32, 64, 128, 256};

// Prometheus' number format: integers without a fraction, others with enough digits to read
// back, and "+Inf".
std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

// A label value with \, " and newlines escaped.
std::string label_value(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string header(const std::string& name, const std::string& type, const std::string& help) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++counts_[static_cast<std::size_t>(bucket)];
  sum_ += value;
  ++count_;
}

std::string Histogram::render(const std::string& name, const std::string& labels) const {
  std::string out;
  int64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += name + "_bucket{" + labels + "le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  const std::string braces = labels.empty() ? "" : "{" + labels.substr(0, labels.size() - 1) + "}";
  out += name + "_sum" + braces + " " + number(sum_) + "\n";
  out += name + "_count" + braces + " " + std::to_string(count_) + "\n";
  return out;
}

ServeMetrics::ServeMetrics() : batch_sentences_(kSentencesBounds), batch_seconds_(kSecondsBounds) {}

std::string ServeMetrics::endpoint_of(const std::string& path) {
  for (const char* known :
       {"/", "/translate", "/v1/translate", "/languages", "/health", "/metrics"}) {
    if (path == known) return path;
  }
  return "other";
}

void ServeMetrics::count_request(const std::string& path, int status, double seconds) {
  const std::string endpoint = endpoint_of(path);
  const std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
  durations_.try_emplace(endpoint, kSecondsBounds).first->second.observe(seconds);
}

void ServeMetrics::count_batch(int64_t sentences, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  sentences_ += sentences;
  batch_sentences_.observe(static_cast<double>(sentences));
  batch_seconds_.observe(seconds);
}

std::string ServeMetrics::render(const ServeGauges& gauges) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out = header("nmt_http_requests_total", "counter",
                           "HTTP requests answered, by endpoint and status code.");
  for (const auto& [key, count] : requests_) {
    out += "nmt_http_requests_total{endpoint=\"" + label_value(key.first) + "\",code=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(count) + "\n";
  }
  out += header("nmt_http_request_duration_seconds", "histogram",
                "Time from routing a request to its answer, by endpoint.");
  for (const auto& [endpoint, histogram] : durations_) {
    out += histogram.render("nmt_http_request_duration_seconds",
                            "endpoint=\"" + label_value(endpoint) + "\",");
  }
  out += header("nmt_http_connections", "gauge",
                "Client connections open, idle ones included (serve.max_connections at most).");
  out += "nmt_http_connections " + std::to_string(gauges.open_connections) + "\n";
  out += header("nmt_http_requests_in_flight", "gauge", "Translation requests being handled.");
  out += "nmt_http_requests_in_flight " + std::to_string(in_flight_.load()) + "\n";
  out += header("nmt_sentences_total", "counter", "Sentences decoded.");
  out += "nmt_sentences_total " + std::to_string(sentences_) + "\n";
  out += header("nmt_batch_sentences", "histogram", "Sentences per decoding batch.");
  out += batch_sentences_.render("nmt_batch_sentences", "");
  out += header("nmt_batch_duration_seconds", "histogram", "Time to decode a batch.");
  out += batch_seconds_.render("nmt_batch_duration_seconds", "");
  out += header("nmt_queue_sentences", "gauge", "Sentences waiting for a batch.");
  out += "nmt_queue_sentences " + std::to_string(gauges.queue_sentences) + "\n";
  out += header("nmt_queue_requests", "gauge", "Requests with sentences waiting for a batch.");
  out += "nmt_queue_requests " + std::to_string(gauges.queue_requests) + "\n";
  out += header("nmt_model_ready", "gauge", "1 once the model is loaded and translating.");
  out += std::string("nmt_model_ready ") + (gauges.is_model_ready ? "1" : "0") + "\n";
  if (gauges.is_model_ready) {
    out += header("nmt_model_info", "gauge", "The served model's languages and version.");
    out += "nmt_model_info{source=\"" + label_value(gauges.source_lang) + "\",target=\"" +
           label_value(gauges.target_lang) + "\",version=\"" + label_value(gauges.version) +
           "\"} 1\n";
  }
  return out;
}

}  // namespace nmt::serve
