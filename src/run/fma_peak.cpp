// The vector unit's fp32 multiply-add ceiling, beside the GEMM peak: what no product can beat at
// the tier nmt's loops run at. Torch-free.
#include "nmt/run/fma_peak.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "nmt/cpu_features.h"

#if NMT_HAS_VECTOR_CLONES
#include <immintrin.h>
#endif

namespace nmt::run {
namespace {

#if NMT_HAS_VECTOR_CLONES
// Independent sums, so that every FMA pipe has work each cycle: more than a multiply-add's
// latency times the pipes (4 cycles x 2 pipes on recent Intel and AMD cores), and few enough to
// stay in the 16 registers AVX2 has.
constexpr int kChains = 12;

template <std::size_t lanes>
float sum_of(const float (&values)[lanes]) {
  float total = 0.0f;
  for (float value : values) total += value;
  return total;
}

// rounds x kChains multiply-adds of 8 (AVX2) or 16 (AVX-512) floats each; each returns a sum of
// the results so that the compiler keeps the work. The factors keep every value finite and normal
// however many rounds run.
[[gnu::target("avx2,fma")]] float avx2_fmas(int64_t rounds) {
  __m256 sums[kChains];
  for (int c = 0; c < kChains; ++c) sums[c] = _mm256_set1_ps(static_cast<float>(c));
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256 one = _mm256_set1_ps(1.0f);
  for (int64_t r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) sums[c] = _mm256_fmadd_ps(sums[c], half, one);
  }
  for (int c = 1; c < kChains; ++c) sums[0] = _mm256_add_ps(sums[0], sums[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sums[0]);
  return sum_of(lanes);
}

[[gnu::target("avx512f")]] float avx512_fmas(int64_t rounds) {
  __m512 sums[kChains];
  for (int c = 0; c < kChains; ++c) sums[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) sums[c] = _mm512_fmadd_ps(sums[c], half, one);
  }
  for (int c = 1; c < kChains; ++c) sums[0] = _mm512_add_ps(sums[0], sums[c]);
  // Stored rather than _mm512_reduce_add_ps, which GCC 12 warns about (an uninitialised operand
  // in its own header).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sums[0]);
  return sum_of(lanes);
}

// Seconds for `threads` threads to run rounds of kernel each, all at once.
double seconds_for(float (*kernel)(int64_t), int64_t rounds, int threads) {
  std::vector<float> results(static_cast<std::size_t>(threads));
  std::vector<std::thread> workers;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { results[static_cast<std::size_t>(t)] = kernel(rounds); });
  }
  for (std::thread& worker : workers) worker.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
#endif

}  // namespace

std::optional<FmaPeak> measure_fma_peak(int threads) {
#if NMT_HAS_VECTOR_CLONES
  const CpuTier tier = vector_loop_tier();
  // The AVX2 tier does not check FMA itself; every AVX2 CPU sold has it, but a VM may hide it.
  if (tier == CpuTier::kBaseline || (tier == CpuTier::kAvx2 && !__builtin_cpu_supports("fma"))) {
    return std::nullopt;
  }
  const int lanes = tier == CpuTier::kAvx512 ? 16 : 8;
  float (*kernel)(int64_t) = tier == CpuTier::kAvx512 ? avx512_fmas : avx2_fmas;
  // Calibrate to about 0.2 s per try, then keep the fastest of three tries: the ceiling.
  int64_t rounds = 1 << 20;
  const double calibration = seconds_for(kernel, rounds, threads);
  if (calibration > 0.0)
    rounds = static_cast<int64_t>(static_cast<double>(rounds) * 0.2 / calibration) + 1;
  double fastest = seconds_for(kernel, rounds, threads);
  for (int attempt = 1; attempt < 3; ++attempt) {
    const double seconds = seconds_for(kernel, rounds, threads);
    if (seconds < fastest) fastest = seconds;
  }
  const double flops = 2.0 * lanes * kChains * static_cast<double>(rounds) * threads;
  return FmaPeak{flops / fastest, tier_name(tier), threads};
#else
  (void)threads;
  return std::nullopt;
#endif
}

}  // namespace nmt::run
