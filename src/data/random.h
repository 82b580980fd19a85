// A small seeded generator with a fixed algorithm (splitmix64) and a fixed shuffle, so that batch
// orders are the same on every platform and standard library (std::shuffle's is unspecified).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nmt::data {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound), bound > 0 (rejection sampling, no modulo bias).
  uint64_t below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t value = next();
    while (value >= limit) value = next();
    return value % bound;
  }

 private:
  uint64_t state_;
};

// Fisher-Yates over items[0, count).
template <class T>
void shuffle(T* items, std::size_t count, SplitMix64& random) {
  for (std::size_t i = count; i > 1; --i) std::swap(items[i - 1], items[random.below(i)]);
}

template <class T>
void shuffle(std::vector<T>& items, SplitMix64& random) {
  shuffle(items.data(), items.size(), random);
}

}  // namespace nmt::data
