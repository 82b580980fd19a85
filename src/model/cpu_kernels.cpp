#include "model/cpu_kernels.h"

#include <algorithm>
#include <cmath>

#include "vector_clones.h"

namespace nmt::model::cpu {
namespace {

// The reductions are vectorised (`omp simd`, compiled with -fopenmp-simd): their sums are in a
// different order than a scalar loop's, as in any vectorised kernel. These loops have no variants
// of their own: they are inlined into attend's and attend_rows's (NMT_VECTOR_CLONES).

// The query's dot products with four key rows at once: four independent sums, so one query load
// serves four keys and the additions of one sum do not wait for another's.
[[gnu::always_inline]] inline void dot4(const float* query,
                                        const float* const keys[4],
                                        int64_t n,
                                        float sums[4]) {
  const float *k0 = keys[0], *k1 = keys[1], *k2 = keys[2], *k3 = keys[3];
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
  for (int64_t i = 0; i < n; ++i) {
    s0 += query[i] * k0[i];
    s1 += query[i] * k1[i];
    s2 += query[i] * k2[i];
    s3 += query[i] * k3[i];
  }
  sums[0] = s0;
  sums[1] = s1;
  sums[2] = s2;
  sums[3] = s3;
}

[[gnu::always_inline]] inline float dot(const float* a, const float* b, int64_t n) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y[i] += w[0] * x[0][i] + ... + w[3] * x[3][i]: the weighted sum of four value rows, y read and
// written once for the four.
[[gnu::always_inline]] inline void axpy4(const float weights[4],
                                         const float* const rows[4],
                                         float* y,
                                         int64_t n) {
  const float *x0 = rows[0], *x1 = rows[1], *x2 = rows[2], *x3 = rows[3];
  for (int64_t i = 0; i < n; ++i)
    y[i] += weights[0] * x0[i] + weights[1] * x1[i] + weights[2] * x2[i] + weights[3] * x3[i];
}

// y[i] += a * x[i]
[[gnu::always_inline]] inline void axpy(float a, const float* x, float* y, int64_t n) {
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
// Inlined into attend's and attend_rows's variants, so that its loops compile for each tier and
// no call through a pointer is made per key.
template <typename KeyRow, typename ValueRow>
[[gnu::always_inline]] inline void attend_heads(const float* query,
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
    const float* head_query = query + offset;
    int64_t j = 0;
    for (; j + 4 <= length; j += 4) {
      const float* const keys[4] = {key(j) + offset, key(j + 1) + offset, key(j + 2) + offset,
                                    key(j + 3) + offset};
      dot4(head_query, keys, head_dim, scores + j);
    }
    for (; j < length; ++j) scores[j] = dot(head_query, key(j) + offset, head_dim);
    float largest = -INFINITY;
    for (j = 0; j < length; ++j) {
      scores[j] *= scale;
      largest = std::max(largest, scores[j]);
    }
    float total = 0.0f;
    for (j = 0; j < length; ++j) {
      scores[j] = std::exp(scores[j] - largest);
      total += scores[j];
    }
    float* head_out = out + offset;
    std::fill(head_out, head_out + head_dim, 0.0f);
    const float inverse_total = 1.0f / total;
    for (j = 0; j + 4 <= length; j += 4) {
      const float weights[4] = {scores[j] * inverse_total, scores[j + 1] * inverse_total,
                                scores[j + 2] * inverse_total, scores[j + 3] * inverse_total};
      const float* const rows[4] = {value(j) + offset, value(j + 1) + offset, value(j + 2) + offset,
                                    value(j + 3) + offset};
      axpy4(weights, rows, head_out, head_dim);
    }
    for (; j < length; ++j) axpy(scores[j] * inverse_total, value(j) + offset, head_out, head_dim);
  }
}

}  // namespace

NMT_VECTOR_CLONES(void,
                  attend,
                  (const float* query,
                   const float* keys,
                   const float* values,
                   int64_t length,
                   int64_t stride,
                   int64_t heads,
                   int64_t head_dim,
                   float* scores,
                   float* out),
                  (query, keys, values, length, stride, heads, head_dim, scores, out)) {
  attend_heads(
      query, [&](int64_t j) { return keys + j * stride; },
      [&](int64_t j) { return values + j * stride; }, length, heads, head_dim, scores, out);
}

NMT_VECTOR_CLONES(void,
                  attend_rows,
                  (const float* query,
                   const float* const* key_rows,
                   const float* const* value_rows,
                   int64_t length,
                   int64_t heads,
                   int64_t head_dim,
                   float* scores,
                   float* out),
                  (query, key_rows, value_rows, length, heads, head_dim, scores, out)) {
  attend_heads(
      query, [&](int64_t j) { return key_rows[j]; }, [&](int64_t j) { return value_rows[j]; },
      length, heads, head_dim, scores, out);
}

}  // namespace nmt::model::cpu
