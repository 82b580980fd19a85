#include "cli/report_writer.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "nmt/config.h"
#include "nmt/io.h"
#include "nmt/viz/report_page.h"

namespace nmt::cli {

void write_report(const std::string& run_dir, const std::string& out_path) {
  viz::ReportInput input;
  input.title = run_dir;
  input.config = read_config_json(run_dir + "/config.json");
  const std::string metrics_path = run_dir + "/metrics.jsonl";
  if (std::filesystem::exists(metrics_path)) {
    std::size_t line_number = 0;
    for (const std::string& line : read_lines(metrics_path)) {
      ++line_number;
      if (line.empty()) continue;
      try {
        input.records.push_back(nlohmann::json::parse(line));
      } catch (const nlohmann::json::parse_error&) {
        spdlog::warn("{}:{}: not a JSON record, skipped", metrics_path, line_number);
      }
    }
  }
  write_text_atomically(out_path, viz::render_report_html(input));
}

}  // namespace nmt::cli
