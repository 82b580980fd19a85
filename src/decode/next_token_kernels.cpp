#include "decode/next_token_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "vector_clones.h"

namespace nmt::decode::kernels {
namespace {

constexpr float kImpossible = -std::numeric_limits<float>::infinity();

// exp(x) for x <= 0, within 2 ulp, in operations that vectorise (libm's expf does not, here):
// Cephes' expf. x = n ln 2 + r with |r| <= ln 2 / 2, exp(r) by a degree-7 polynomial, 2^n built in
// the exponent bits. Inputs below -87 (where exp underflows, masked logits, -inf) give ~1e-38.
inline float exp_non_positive(float x) {
  constexpr float kRoundingShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  x = std::max(x, -87.0f);
  const float n = (x * 1.44269504088896341f + kRoundingShift) - kRoundingShift;
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t exponent = (static_cast<int32_t>(n) + 127) << 23;
  float power;
  std::memcpy(&power, &exponent, sizeof power);
  return p * power;
}

// log_softmax(x)[v] = (x[v] - largest) - log_sum, the order of LibTorch's log_softmax.
struct Normaliser {
  float largest = kImpossible;
  float log_sum = 0.0f;
};

NMT_VECTOR_CLONES(float, block_largest, (const float* values, int64_t n), (values, n)) {
  float largest = kImpossible;
#pragma omp simd reduction(max : largest)
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, values[i]);
  return largest;
}

// The normaliser of a row whose largest value is known.
NMT_VECTOR_CLONES(Normaliser,
                  normaliser_below,
                  (const float* row, int64_t n, float largest),
                  (row, n, largest)) {
  Normaliser z;
  z.largest = largest;
  if (largest == kImpossible) return z;
  // Summed in blocks: one running sum per vector lane over a whole vocabulary drops the terms
  // below half its ulp, and with 8 or 4 lanes (AVX2, the baseline) that lost 1.4e-5 of the
  // log-normaliser on 8,000 logits, against 1e-6 with AVX-512's 16. A block's sum stays small.
  constexpr int64_t kBlock = 128;
  float sum = 0.0f;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    float block = 0.0f;
#pragma omp simd reduction(+ : block)
    for (int64_t i = start; i < end; ++i) block += exp_non_positive(row[i] - largest);
    sum += block;
  }
  z.log_sum = std::log(sum);
  return z;
}

// Inserts (score, index) into the descending list scores/indices[count] if it beats the last entry;
// an equal score stays behind the entries already there (they have lower indices).
void insert(float score, int64_t index, int64_t count, float* scores, int64_t* indices) {
  if (!(score > scores[count - 1])) return;
  int64_t slot = count - 1;
  while (slot > 0 && scores[slot - 1] < score) {
    scores[slot] = scores[slot - 1];
    indices[slot] = indices[slot - 1];
    --slot;
  }
  scores[slot] = score;
  indices[slot] = index;
}

}  // namespace

float log_normaliser(const float* row, int64_t n) {
  const Normaliser z = normaliser_below(row, n, block_largest(row, n));
  return z.largest + z.log_sum;
}

int64_t first_largest(const float* values, int64_t n) {
  // The largest of each block, vectorised; then one block scanned for the position.
  constexpr int64_t kBlock = 64;
  float best = block_largest(values, std::min(kBlock, n));
  int64_t best_block = 0;
  for (int64_t start = kBlock; start < n; start += kBlock) {
    const float largest = block_largest(values + start, std::min(kBlock, n - start));
    if (largest > best) {
      best = largest;
      best_block = start;
    }
  }
  const float* block = values + best_block;
  return best_block + (std::max_element(block, block + std::min(kBlock, n - best_block)) - block);
}

TokenChoice most_likely(const float* row, int64_t vocab, int64_t first_token) {
  const int64_t id = first_token + first_largest(row + first_token, vocab - first_token);
  // The row's largest is the chosen token's or one before first_token's: the same value
  // block_largest would find over the whole row, since a maximum is exact.
  float largest = row[id];
  for (int64_t v = 0; v < first_token; ++v) largest = std::max(largest, row[v]);
  const Normaliser z = normaliser_below(row, vocab, largest);
  return {id, row[id] - (z.largest + z.log_sum)};
}

void best_continuations(const float* logits,
                        int64_t beams,
                        int64_t vocab,
                        const float* beam_scores,
                        int64_t first_token,
                        int64_t count,
                        float* scores,
                        int64_t* indices) {
  // Rows are scanned in blocks; a block is skipped when its largest logit's total cannot beat the
  // current last entry. That test is exact: each rounded operation of the total is monotone in the
  // logit, so no total in the block exceeds the largest logit's. The blocks' maxima are found in
  // the pass that finds the row's.
  constexpr int64_t kBlock = 64;
  std::fill(scores, scores + count, kImpossible);
  std::fill(indices, indices + count, int64_t{0});
  std::vector<float> block_maxima(
      static_cast<std::size_t>((vocab - first_token + kBlock - 1) / kBlock));
  for (int64_t b = 0; b < beams; ++b) {
    const float beam_score = beam_scores[b];
    if (!(beam_score > kImpossible)) continue;  // a placeholder beam
    const float* row = logits + b * vocab;
    float largest = block_largest(row, first_token);
    for (int64_t start = first_token, block = 0; start < vocab; start += kBlock, ++block) {
      const float block_max = block_largest(row + start, std::min(kBlock, vocab - start));
      block_maxima[static_cast<std::size_t>(block)] = block_max;
      largest = std::max(largest, block_max);
    }
    const Normaliser z = normaliser_below(row, vocab, largest);
    const auto total = [&](float logit) { return beam_score + ((logit - z.largest) - z.log_sum); };
    for (int64_t start = first_token, block = 0; start < vocab; start += kBlock, ++block) {
      if (!(total(block_maxima[static_cast<std::size_t>(block)]) > scores[count - 1])) continue;
      for (int64_t v = start; v < std::min(start + kBlock, vocab); ++v)
        insert(total(row[v]), b * vocab + v, count, scores, indices);
    }
  }
}

}  // namespace nmt::decode::kernels
