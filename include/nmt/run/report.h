// The HTML report of a run directory (`nmt report`, and the end of `nmt train`): its config.json
// and metrics.jsonl drawn by viz/report_page.h. Logs a warning per metrics line it skips; throws
// ConfigError for a missing or unreadable config.json, nmt::Error when the page cannot be written.
#pragma once

#include <string>

#include "nmt/run_dir.h"

namespace nmt::run {

// Writes the page atomically to out_path.
void write_report(const RunDir& run, const std::string& out_path);

}  // namespace nmt::run
