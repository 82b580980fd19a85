// Inverted dropout (Srivastava et al. 2014) while training: each element is kept with probability
// 1 - p and scaled by 1 / (1 - p), or zeroed.
//
// On the CPU the mask comes from a counter-based hash (SplitMix64's output function of a seed plus
// the element's index) and the seed from one draw of LibTorch's default CPU generator: threads fill
// the mask in parallel, the same seed gives the same mask whatever the thread count, and a
// checkpoint's generator state resumes the same masks. LibTorch's own dropout draws one Mersenne
// Twister number per element on one thread: 112 ms of a 620 ms bf16 training update of the
// recommended model (data/benchmarks/torch2-cpu-attention-2026-11-24/). Other devices use
// at::dropout. Never logs.
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt::model {

// x itself when !training or p == 0; p in [0, 1) (model options check it).
at::Tensor inverted_dropout(const at::Tensor& x, double p, bool training);

}  // namespace nmt::model
