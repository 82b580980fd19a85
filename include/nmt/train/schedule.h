// Learning-rate schedules. Steps count from 1 (the first optimiser update). Never logs.
#pragma once

#include <cstdint>

#include "nmt/train/options.h"

namespace nmt::train {

// constant: lr. inverse_sqrt: lr * min(step / warmup, sqrt(warmup / step)), i.e. a linear warmup
// to lr at step `warmup`, then decay with 1/sqrt(step) (Vaswani et al. 2017, 5.3, with the peak
// set by lr instead of d_model^-0.5).
double learning_rate(const TrainOptions& options, int64_t step);

}  // namespace nmt::train
