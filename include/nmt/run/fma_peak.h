// The fp32 multiply-add ceiling of the CPU, which `nmt bench train` gives beside its GEMM peak.
// Torch-free.
#pragma once

#include <optional>
#include <string>

namespace nmt::run {

// The fp32 multiply-add ceiling of this CPU's vector unit at the tier nmt's loops run at
// (vector_loop_tier(): AVX-512 or AVX2, under NMT_CPU_ISA's cap), `threads` threads at once:
// independent multiply-adds in registers, nothing loaded or stored, the fastest of three tries of
// about 0.2 s. No product at that tier can beat it. Nothing at the baseline tier, on a CPU
// without FMA, or in a build without nmt's vector loops (cpu_features.h).
struct FmaPeak {
  double flops_per_s = 0.0;
  std::string tier;  // tier_name(): "avx2" or "avx512"
  int threads = 0;
};
std::optional<FmaPeak> measure_fma_peak(int threads);

}  // namespace nmt::run
