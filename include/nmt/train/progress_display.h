// Training progress for a person: on a terminal, one status line redrawn in place (epoch, bar,
// loss, learning rate, tokens/s, ETA); elsewhere (logs, CI), a plain spdlog line every log_every
// steps. Writes to stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace nmt::train {

struct ProgressLine {
  int64_t epoch = 0;  // 1-based for display
  int64_t epochs = 0;
  int64_t batch = 0;    // batches done in this epoch
  int64_t batches = 0;  // batches in this epoch
  int64_t step = 0;
  double loss = 0.0;
  double lr = 0.0;
  double tokens_per_second = 0.0;
  double eta_seconds = 0.0;
};

class ProgressDisplay {
 public:
  // is_terminal: redraw a status line instead of logging lines.
  explicit ProgressDisplay(bool is_terminal);

  // Called after every step; draws at most ten times a second on a terminal.
  void update(const ProgressLine& line);
  // Plain record every log_every steps (not on a terminal).
  void log(const ProgressLine& line);
  // Clears the status line before other output.
  void clear();

  bool is_terminal() const { return is_terminal_; }

 private:
  bool is_terminal_;
  bool has_line_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace nmt::train
