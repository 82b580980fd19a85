#include "model/cpu_kernels.h"

#include <algorithm>
#include <cmath>

#include "vector_clones.h"

namespace nmt::model::cpu {
namespace {

// The reductions are vectorised (`omp simd`, compiled with -fopenmp-simd): their sums are in a
// different order than a scalar loop's, as in any vectorised kernel.
NMT_VECTOR_CLONES(float, dot, (const float* a, const float* b, int64_t n), (a, b, n)) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y[i] += a * x[i]
NMT_VECTOR_CLONES(void, axpy, (float a, const float* x, float* y, int64_t n), (a, x, y, n)) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

}  // namespace

NMT_VECTOR_CLONES(void,
                  layer_norm,
                  (const float* x,
                   int64_t rows,
                   int64_t n,
                   const float* gamma,
                   const float* beta,
                   float eps,
                   float* y),
                  (x, rows, n, gamma, beta, eps, y)) {
  const float inverse_n = 1.0f / static_cast<float>(n);
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* out = y + r * n;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += in[i];
    const float mean = sum * inverse_n;
    float squares = 0.0f;
#pragma omp simd reduction(+ : squares)
    for (int64_t i = 0; i < n; ++i) squares += (in[i] - mean) * (in[i] - mean);
    const float inverse_deviation = 1.0f / std::sqrt(squares * inverse_n + eps);
    for (int64_t i = 0; i < n; ++i)
      out[i] = (in[i] - mean) * inverse_deviation * gamma[i] + beta[i];
  }
}

NMT_VECTOR_CLONES(void, add, (float* x, const float* y, int64_t count), (x, y, count)) {
  for (int64_t i = 0; i < count; ++i) x[i] += y[i];
}

NMT_VECTOR_CLONES(void,
                  activate,
                  (Activation activation, float* x, int64_t count),
                  (activation, x, count)) {
  switch (activation) {
    case Activation::kRelu:
      for (int64_t i = 0; i < count; ++i) x[i] = std::max(x[i], 0.0f);
      return;
    case Activation::kGelu: {
      // at::gelu's exact form: x * Phi(x) = x / 2 * (1 + erf(x / sqrt 2)).
      const float inverse_sqrt2 = 0.70710678118654752f;
      for (int64_t i = 0; i < count; ++i)
        x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * inverse_sqrt2));
      return;
    }
    case Activation::kSwish:
      for (int64_t i = 0; i < count; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
      return;
  }
}

namespace {

// out[h] = softmax(q[h] . k[h] / sqrt(head_dim)) v[h], key and value row j at key(j) and value(j).
template <typename KeyRow, typename ValueRow>
void attend_heads(const float* query,
                  const KeyRow& key,
                  const ValueRow& value,
                  int64_t length,
                  int64_t heads,
                  int64_t head_dim,
                  float* scores,
                  float* out) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  for (int64_t h = 0; h < heads; ++h) {
    const int64_t offset = h * head_dim;
    float largest = -INFINITY;
    for (int64_t j = 0; j < length; ++j) {
      scores[j] = dot(query + offset, key(j) + offset, head_dim) * scale;
      largest = std::max(largest, scores[j]);
    }
    float total = 0.0f;
    for (int64_t j = 0; j < length; ++j) {
      scores[j] = std::exp(scores[j] - largest);
      total += scores[j];
    }
    float* head_out = out + offset;
    std::fill(head_out, head_out + head_dim, 0.0f);
    const float inverse_total = 1.0f / total;
    for (int64_t j = 0; j < length; ++j) {
      axpy(scores[j] * inverse_total, value(j) + offset, head_out, head_dim);
    }
  }
}

}  // namespace

void attend(const float* query,
            const float* keys,
            const float* values,
            int64_t length,
            int64_t stride,
            int64_t heads,
            int64_t head_dim,
            float* scores,
            float* out) {
  attend_heads(
      query, [&](int64_t j) { return keys + j * stride; },
      [&](int64_t j) { return values + j * stride; }, length, heads, head_dim, scores, out);
}

void attend_rows(const float* query,
                 const float* const* key_rows,
                 const float* const* value_rows,
                 int64_t length,
                 int64_t heads,
                 int64_t head_dim,
                 float* scores,
                 float* out) {
  attend_heads(
      query, [&](int64_t j) { return key_rows[j]; }, [&](int64_t j) { return value_rows[j]; },
      length, heads, head_dim, scores, out);
}

}  // namespace nmt::model::cpu
