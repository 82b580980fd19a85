// How src/import/ refuses what it reads: ConfigError "source: problem", where source names the
// file (and the key or entry). Shared by the readers of src/import/ (Marian directories,
// safetensors, zip archives, PyTorch checkpoints). Private to src/import/.
#pragma once

#include <string>

#include "nmt/error.h"

namespace nmt::import::detail {

[[noreturn]] inline void fail(const std::string& source, const std::string& problem) {
  throw ConfigError(source + ": " + problem);
}

}  // namespace nmt::import::detail
