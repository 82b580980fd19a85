// STYLE.md rule 17: the text and eval modules do not link LibTorch. A test executable built from
// such modules alone checks that no Torch library was loaded into its own process.
#pragma once

#include <fstream>
#include <string>

namespace nmt::testing {

// The first loaded shared object whose path mentions libtorch or libc10, or "".
inline std::string loaded_torch_library() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libtorch") != std::string::npos || line.find("libc10") != std::string::npos) {
      return line.substr(line.find('/'));
    }
  }
  return "";
}

}  // namespace nmt::testing
