#include "nmt/train/schedule.h"

#include <algorithm>
#include <cmath>

namespace nmt::train {

double learning_rate(const TrainOptions& options, int64_t step) {
  if (options.schedule == Schedule::kConstant) return options.lr;
  const double t = static_cast<double>(std::max<int64_t>(step, 1));
  const double warmup = static_cast<double>(options.warmup);
  return options.lr * std::min(t / warmup, std::sqrt(warmup / t));
}

}  // namespace nmt::train
