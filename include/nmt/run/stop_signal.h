// Ctrl-C and SIGTERM during training: while a StopOnSignal is alive, either signal sets a flag
// that the trainer polls between batches (it then saves checkpoint.pt and returns) instead of
// killing the process. The previous handlers come back when it is destroyed. Never logs.
#pragma once

#include <atomic>

namespace nmt::run {

class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  // True once SIGINT or SIGTERM arrived.
  const std::atomic<bool>& requested() const;

 private:
  void (*previous_int_)(int) = nullptr;
  void (*previous_term_)(int) = nullptr;
};

}  // namespace nmt::run
