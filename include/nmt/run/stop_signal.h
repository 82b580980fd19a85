// Ctrl-C and SIGTERM during `nmt train`, from its first moment to its last. While a StopOnSignal
// is alive either signal is handled in one of two ways:
//   - requested (the default, and during training): a flag is set that the trainer polls between
//     batches; it then saves checkpoint.pt and returns;
//   - at once (exit_at_once, the data phase): the process prints a message and ends with status
//     130 right away, since there is nothing to save. Every file of a run is written atomically and
//     config.json comes first, so `nmt train --resume` then prepares the data again (from the
//     split the data phase keeps once it is made: src/run/split_checkpoint.h).
// The previous handlers come back when it is destroyed. Never logs.
#pragma once

#include <atomic>
#include <string>

namespace nmt::run {

class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  // True once SIGINT or SIGTERM arrived while signals were only requests.
  const std::atomic<bool>& requested() const;

  // From now on a signal prints "nmt: <message>" to stderr and ends the process with status 130
  // at once. Throws Interrupted(message) when a signal was requested before.
  void exit_at_once(const std::string& message);
  // From now on a signal sets requested() again.
  void request_stop_instead();

 private:
  void (*previous_int_)(int) = nullptr;
  void (*previous_term_)(int) = nullptr;
};

}  // namespace nmt::run
