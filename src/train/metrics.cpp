#include "nmt/train/metrics.h"

#include <chrono>

#include "nmt/error.h"

namespace nmt::train {

MetricsLog::MetricsLog(const std::string& path) : out_(path, std::ios::app) {
  if (!out_) throw Error("cannot open " + path + " for appending");
}

void MetricsLog::write(nlohmann::json record) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  record["time"] = std::chrono::duration<double>(now).count();
  out_ << record.dump() << '\n';
  out_.flush();
}

}  // namespace nmt::train
