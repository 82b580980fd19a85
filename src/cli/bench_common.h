// Measurements shared by `nmt bench train` and `nmt bench translate`.
#pragma once

#include <cstdint>

#include <c10/core/Device.h>

#include "nmt/model/options.h"

namespace nmt::cli {

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

// Dense matrix-multiply throughput measured on device, in FLOP/s: 1024^2 fp32 on the CPU,
// 8192^2 in bf16 (autocast=true) or fp32 on CUDA.
double measure_gemm_peak(const c10::Device& device, bool use_bf16);

// Matrix-multiply FLOPs of one training step (forward + backward = 3 x forward) for a batch of
// `rows` sentences padded to source_length and target_length, with target_tokens real targets
// projected onto the vocabulary. With padded=false only real tokens count (model FLOPs).
struct StepShape {
  int64_t rows = 0;
  int64_t source_length = 0;   // padded S
  int64_t target_length = 0;   // padded T
  int64_t source_tokens = 0;   // real
  int64_t target_tokens = 0;   // real
};
double training_flops(const model::TransformerOptions& options, int64_t target_vocab, const StepShape& shape,
                      bool padded);

}  // namespace nmt::cli
