// Seconds on the steady clock: what training, benchmarks and long commands time themselves with.
// Torch-free.
#pragma once

#include <chrono>

namespace nmt {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace nmt
