// NMT_VECTOR_CLONES marks the element loops of nmt's own CPU kernels: GCC compiles each for
// AVX-512 and AVX2 as well as the baseline, and the first call picks the one of the tier nmt runs
// at (vector_loop_tier(): the CPU's, under NMT_CPU_ISA's cap), so one binary runs everywhere,
// still uses the wide registers (and fused multiply-adds) where they exist, and computes at a
// capped tier what a CPU of that tier computes (a vectorised sum's order follows the register
// width). Written
//
//   NMT_VECTOR_CLONES(float, dot, (const float* a, const float* b, int64_t n), (a, b, n)) {
//     ... the loop ...
//   }
//
// the body becomes an always-inlined function that each variant compiles for its instruction set.
// Only GCC builds on x86-64 (Debian's and CI's) have the variants; other compilers get the
// baseline loop alone.
#pragma once

#include "nmt/cpu_features.h"

namespace nmt {

// The variant of a loop for vector_loop_tier().
template <class Loop>
Loop pick_vector_loop(Loop avx512, Loop avx2, Loop baseline) {
  const CpuTier tier = vector_loop_tier();
  return tier == CpuTier::kAvx512 ? avx512 : tier == CpuTier::kAvx2 ? avx2 : baseline;
}

}  // namespace nmt

#if NMT_HAS_VECTOR_CLONES
#define NMT_VECTOR_CLONES(result, name, parameters, arguments)                \
  [[gnu::always_inline]] inline result name##_loop parameters;                \
  [[gnu::target("avx512f")]] static result name##_avx512 parameters {         \
    return name##_loop arguments;                                             \
  }                                                                           \
  [[gnu::target("avx2,fma")]] static result name##_avx2 parameters {          \
    return name##_loop arguments;                                             \
  }                                                                           \
  static result name##_baseline parameters { return name##_loop arguments; }  \
  result name parameters {                                                    \
    static const auto chosen =                                                \
        ::nmt::pick_vector_loop(name##_avx512, name##_avx2, name##_baseline); \
    return chosen arguments;                                                  \
  }                                                                           \
  [[gnu::always_inline]] inline result name##_loop parameters
#else
#define NMT_VECTOR_CLONES(result, name, parameters, arguments) result name parameters
#endif
