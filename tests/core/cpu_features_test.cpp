// The OpenBLAS kernel sets nmt compares (cpu_features.h): which choice is below what a CPU allows;
// the oneDNN primitive cache nmt bounds.
#include "nmt/cpu_features.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace nmt {
namespace {

TEST(OpenBlasCoreTest, GenericKernelsAreBelowWhatAnAvxCpuAllows) {
  EXPECT_TRUE(is_openblas_core_below("Prescott", "SkylakeX"));
  EXPECT_TRUE(is_openblas_core_below("Nehalem", "Haswell"));
  EXPECT_TRUE(is_openblas_core_below("Sandybridge", "Haswell"));
  EXPECT_TRUE(is_openblas_core_below("Zen", "SkylakeX"));
  EXPECT_TRUE(is_openblas_core_below("SkylakeX", "Cooperlake"));
}

TEST(OpenBlasCoreTest, AnEqualOrBetterChoiceOrAnUnknownNameIsLeftAlone) {
  EXPECT_FALSE(is_openblas_core_below("Haswell", "Haswell"));
  EXPECT_FALSE(is_openblas_core_below("Zen", "Haswell"));  // Zen's kernels are Haswell's
  EXPECT_FALSE(is_openblas_core_below("Cooperlake", "SkylakeX"));
  EXPECT_FALSE(is_openblas_core_below("SapphireRapids", "Cooperlake"));
  EXPECT_FALSE(is_openblas_core_below("Zen5", "Haswell"));  // a name newer than this table
  EXPECT_FALSE(is_openblas_core_below("Prescott", ""));     // a CPU without AVX
  EXPECT_FALSE(is_openblas_core_below("", "Haswell"));      // not OpenBLAS
}

TEST(OneDnnPrimitiveCacheTest, IsBoundedUnlessTheUserChoseASize) {
  const char* before = std::getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY");
  const std::string saved = before != nullptr ? before : "";
  unsetenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY");
  bound_onednn_primitive_cache();
  EXPECT_STREQ(std::getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY"),
               std::to_string(kOneDnnPrimitiveCache).c_str());
  setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "1000", 1);
  bound_onednn_primitive_cache();
  EXPECT_STREQ(std::getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY"), "1000");
  if (before != nullptr) {
    setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", saved.c_str(), 1);
  } else {
    unsetenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY");
  }
}

TEST(OpenBlasCoreTest, TheBestCoreFollowsTheTier) {
  const std::string best = best_openblas_core();
  switch (cpu_tier()) {
    case CpuTier::kBaseline:
      EXPECT_TRUE(best.empty() || best == "Sandybridge") << best;
      break;
    case CpuTier::kAvx2:
    case CpuTier::kAvxVnni:
#if defined(__x86_64__)
      EXPECT_EQ(best, __builtin_cpu_is("amd") ? "Zen" : "Haswell");  // blas-cores-2026-12-02-zen3
#endif
      break;
    default:
      EXPECT_TRUE(best == "SkylakeX" || best == "Cooperlake") << best;
  }
}

}  // namespace
}  // namespace nmt
