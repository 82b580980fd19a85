#include "nmt/train/progress_display.h"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "nmt/format.h"

namespace nmt::train {

ProgressDisplay::ProgressDisplay(bool is_terminal) : is_terminal_(is_terminal) {}

void ProgressDisplay::update(const ProgressLine& line) {
  if (!is_terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (has_line_ && now - last_draw_ < std::chrono::milliseconds(100) && line.batch != line.batches)
    return;
  last_draw_ = now;
  constexpr int kWidth = 24;
  const double done =
      line.batches > 0 ? static_cast<double>(line.batch) / static_cast<double>(line.batches) : 0.0;
  const int filled = static_cast<int>(done * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  std::fprintf(stderr,
               "\r\033[Kepoch %lld/%lld [%s] %3.0f%% step %lld loss %.4f lr %.2e %.0f tok/s ETA %s",
               static_cast<long long>(line.epoch), static_cast<long long>(line.epochs), bar.c_str(),
               done * 100.0, static_cast<long long>(line.step), line.loss, line.lr,
               line.tokens_per_second, format_clock(line.eta_seconds).c_str());
  std::fflush(stderr);
  has_line_ = true;
}

void ProgressDisplay::log(const ProgressLine& line) {
  if (is_terminal_) return;
  spdlog::info("epoch {}/{} batch {}/{} step {} loss {:.4f} lr {:.3g} {:.0f} tgt tok/s ETA {}",
               line.epoch, line.epochs, line.batch, line.batches, line.step, line.loss, line.lr,
               line.tokens_per_second, format_clock(line.eta_seconds));
}

void ProgressDisplay::clear() {
  if (!is_terminal_ || !has_line_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  has_line_ = false;
}

}  // namespace nmt::train
