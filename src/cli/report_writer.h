// Writes the HTML report of a run directory (used by `nmt report` and at the end of `nmt train`).
#pragma once

#include <string>

namespace nmt::cli {

// Reads RUN/config.json and RUN/metrics.jsonl (a malformed line is skipped) and writes the page
// atomically to out_path. The latest "eval" record, when any, gives the final scores.
void write_report(const std::string& run_dir, const std::string& out_path);

}  // namespace nmt::cli
