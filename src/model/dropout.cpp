#include "nmt/model/dropout.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cstdint>
#include <mutex>

namespace nmt::model {
namespace {

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;
// Pairs of elements per thread's share below which splitting the work costs more than it saves.
constexpr int64_t kGrainPairs = 16384;

// SplitMix64's output function (Steele, Lea and Flood 2014): mix(seed + k * gamma) for k = 1, 2,
// ... is SplitMix64's own sequence, which passes BigCrush.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t draw_seed() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(generator)->random64();
}

// Each 64-bit hash decides two elements, one per 32-bit half.
template <typename T>
void fill_mask(T* mask, int64_t count, uint64_t seed, uint64_t threshold, T scale) {
  const T zero(0);
  at::parallel_for(0, (count + 1) / 2, kGrainPairs, [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin; pair < end; ++pair) {
      const uint64_t bits = mix(seed + static_cast<uint64_t>(pair + 1) * kGoldenGamma);
      const int64_t index = 2 * pair;
      mask[index] = (bits & 0xFFFFFFFFULL) < threshold ? scale : zero;
      if (index + 1 < count) mask[index + 1] = (bits >> 32) < threshold ? scale : zero;
    }
  });
}

}  // namespace

at::Tensor inverted_dropout(const at::Tensor& x, double p, bool training) {
  if (!training || p == 0.0) return x;
  if (!x.device().is_cpu()) return at::dropout(x, p, /*train=*/true);
  const double keep = 1.0 - p;
  const auto threshold = static_cast<uint64_t>(keep * 4294967296.0);
  const uint64_t seed = draw_seed();
  at::Tensor mask = at::empty(x.sizes(), x.options().requires_grad(false));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "dropout", [&] {
    fill_mask<scalar_t>(mask.data_ptr<scalar_t>(), mask.numel(), seed, threshold,
                        static_cast<scalar_t>(1.0 / keep));
  });
  return x * mask;
}

}  // namespace nmt::model
