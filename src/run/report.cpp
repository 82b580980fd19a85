#include "nmt/run/report.h"

#include <spdlog/spdlog.h>

#include "nmt/io.h"
#include "nmt/metrics_jsonl.h"
#include "nmt/run/config.h"
#include "nmt/viz/report_page.h"

namespace nmt::run {

void write_report(const RunDir& run, const std::string& out_path) {
  viz::ReportInput input;
  input.title = run.path();
  input.config = read_config_json(run.config());
  MetricsFile metrics = read_metrics(run.metrics());
  for (const std::size_t line : metrics.skipped_lines) {
    spdlog::warn("{}:{}: not a metrics record, skipped", run.metrics(), line);
  }
  input.records = std::move(metrics.records);
  write_text_atomically(out_path, viz::render_report_html(input));
}

}  // namespace nmt::run
