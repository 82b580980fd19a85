// RUN/metrics.jsonl: one JSON object per line for every log record of a run (steps, epochs,
// validations, the end of training), appended and flushed as they happen so that a crash loses
// nothing already logged. Read back by `nmt report`. Throws nmt::Error when the file cannot be
// opened; never logs.
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace nmt::train {

class MetricsLog {
 public:
  // Opens path for appending (a resumed run continues the same file).
  explicit MetricsLog(const std::string& path);

  // Writes record with "time" (Unix seconds) added.
  void write(nlohmann::json record);

 private:
  std::ofstream out_;
};

}  // namespace nmt::train
