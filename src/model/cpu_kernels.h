// The element-wise and attention loops of CPU decoding (model/cpu_decoder.cpp), on plain row-major
// float arrays, single-threaded: CPU decoding runs one translator per core instead of splitting
// these small operations between threads. Compiled for AVX-512 and AVX2 as well as the baseline;
// the processor picks one when the program loads. Private to src/model; never throws.
#pragma once

#include <cstdint>

#include "nmt/model/options.h"

namespace nmt::model::cpu {

// y[r] = (x[r] - mean) / sqrt(var + eps) * gamma + beta for `rows` rows of width n (LayerNorm over
// the last dimension, biased variance, as torch::nn::LayerNorm). y may be x.
void layer_norm(const float* x,
                int64_t rows,
                int64_t n,
                const float* gamma,
                const float* beta,
                float eps,
                float* y);

// x[i] += y[i] for count elements.
void add(float* x, const float* y, int64_t count);

// x[i] = activation(x[i]) for count elements, as model::activate computes it.
void activate(Activation activation, float* x, int64_t count);

// Multi-head attention of one query row [heads * head_dim] over `length` key and value rows, row r
// of keys at keys + r * stride (heads side by side within a row, as the projections write them):
// out[h] = softmax(q[h] . k[h] / sqrt(head_dim)) v[h] for every head h. scores: length floats of
// scratch.
void attend(const float* query,
            const float* keys,
            const float* values,
            int64_t length,
            int64_t stride,
            int64_t heads,
            int64_t head_dim,
            float* scores,
            float* out);

// attend with key and value row j at key_rows[j] and value_rows[j] (rows gathered from a cache).
void attend_rows(const float* query,
                 const float* const* key_rows,
                 const float* const* value_rows,
                 int64_t length,
                 int64_t heads,
                 int64_t head_dim,
                 float* scores,
                 float* out);

}  // namespace nmt::model::cpu
