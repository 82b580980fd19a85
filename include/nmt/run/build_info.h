// What this nmt binary is: its version, the LibTorch it was compiled against, and which optional
// features it was built with and can use on this machine (`nmt --version`, so that a bug report
// says what was running). Never throws; never logs.
#pragma once

#include <string>

namespace nmt::run {

// Several lines: "nmt 0.1.0", "LibTorch 1.13.1", then one line per feature, e.g.
// "  CUDA          no (this LibTorch was built without it)".
std::string describe_build(const std::string& nmt_version);

}  // namespace nmt::run
