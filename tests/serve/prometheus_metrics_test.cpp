#include "nmt/serve/prometheus_metrics.h"

#include <gtest/gtest.h>

namespace nmt::serve {
namespace {

TEST(HistogramTest, BucketsAreCumulativeAndBoundsInclusive) {
  Histogram histogram({1, 2, 4});
  for (const double value : {0.5, 1.0, 1.5, 4.0, 9.0}) histogram.observe(value);
  EXPECT_EQ(histogram.render("x", "a=\"b\","),
            "x_bucket{a=\"b\",le=\"1\"} 2\n"
            "x_bucket{a=\"b\",le=\"2\"} 3\n"
            "x_bucket{a=\"b\",le=\"4\"} 4\n"
            "x_bucket{a=\"b\",le=\"+Inf\"} 5\n"
            "x_sum{a=\"b\"} 16\n"
            "x_count{a=\"b\"} 5\n");
  EXPECT_EQ(Histogram({1}).render("y", ""),
            "y_bucket{le=\"1\"} 0\ny_bucket{le=\"+Inf\"} 0\ny_sum 0\ny_count 0\n");
}

TEST(ServeMetricsTest, StrayPathsShareOneLabel) {
  EXPECT_EQ(ServeMetrics::endpoint_of("/translate"), "/translate");
  EXPECT_EQ(ServeMetrics::endpoint_of("/v1/translate"), "/v1/translate");
  EXPECT_EQ(ServeMetrics::endpoint_of("/"), "/");
  EXPECT_EQ(ServeMetrics::endpoint_of("/wp-admin/login.php"), "other");
  EXPECT_EQ(ServeMetrics::endpoint_of("/translate/"), "other");
}

TEST(ServeMetricsTest, RendersThePrometheusTextFormat) {
  ServeMetrics metrics;
  metrics.count_request("/translate", 200, 0.02);
  metrics.count_request("/translate", 200, 0.3);
  metrics.count_request("/translate", 400, 0.001);
  metrics.count_request("/nope", 404, 0.0);
  metrics.count_batch(3, 0.015);
  metrics.count_batch(1, 0.004);
  metrics.request_started();
  ServeGauges gauges;
  gauges.open_connections = 5;
  gauges.queue_sentences = 7;
  gauges.queue_requests = 2;
  gauges.is_model_ready = true;
  gauges.source_lang = "en";
  gauges.target_lang = "es";
  gauges.version = "ab\"c";
  const std::string text = metrics.render(gauges);
  for (const char* line : {
           "# TYPE nmt_http_requests_total counter\n",
           "nmt_http_requests_total{endpoint=\"/translate\",code=\"200\"} 2\n",
           "nmt_http_requests_total{endpoint=\"/translate\",code=\"400\"} 1\n",
           "nmt_http_requests_total{endpoint=\"other\",code=\"404\"} 1\n",
           "# TYPE nmt_http_request_duration_seconds histogram\n",
           "nmt_http_request_duration_seconds_bucket{endpoint=\"/translate\",le=\"0.005\"} 1\n",
           "nmt_http_request_duration_seconds_bucket{endpoint=\"/translate\",le=\"0.025\"} 2\n",
           "nmt_http_request_duration_seconds_bucket{endpoint=\"/translate\",le=\"+Inf\"} 3\n",
           "nmt_http_request_duration_seconds_count{endpoint=\"/translate\"} 3\n",
           "# TYPE nmt_http_connections gauge\n",
           "nmt_http_connections 5\n",
           "nmt_http_requests_in_flight 1\n",
           "nmt_sentences_total 4\n",
           "nmt_batch_sentences_bucket{le=\"1\"} 1\n",
           "nmt_batch_sentences_bucket{le=\"4\"} 2\n",
           "nmt_batch_sentences_sum 4\n",
           "nmt_batch_sentences_count 2\n",
           "nmt_batch_duration_seconds_bucket{le=\"0.005\"} 1\n",
           "nmt_batch_duration_seconds_count 2\n",
           "# TYPE nmt_queue_sentences gauge\n",
           "nmt_queue_sentences 7\n",
           "nmt_queue_requests 2\n",
           "nmt_model_ready 1\n",
           "nmt_model_info{source=\"en\",target=\"es\",version=\"ab\\\"c\"} 1\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "not in:\n" << text;
  }
  EXPECT_EQ(text.back(), '\n');
  metrics.request_finished();
  EXPECT_NE(metrics.render(gauges).find("nmt_http_requests_in_flight 0\n"), std::string::npos);
}

TEST(ServeMetricsTest, NoModelInfoBeforeTheModelIsReady) {
  const std::string text = ServeMetrics().render({});
  EXPECT_NE(text.find("nmt_model_ready 0\n"), std::string::npos);
  EXPECT_EQ(text.find("nmt_model_info"), std::string::npos);
  EXPECT_NE(text.find("nmt_sentences_total 0\n"), std::string::npos);
}

}  // namespace
}  // namespace nmt::serve
