// The per-step arithmetic of CPU search over a row of next-token logits, without writing
// log-probabilities out: log_softmax(x)[v] = x[v] - log_normaliser(x). A beam step of 64 sentences
// with 5 beams over 8,000 tokens would otherwise write and read back three [320, 8000] tensors per
// step (log-probabilities, beam totals, top-k's working copy), 10 MB each, and fault fresh pages
// for them; here each row is read while it is in cache. Compiled for AVX-512 and AVX2 as well as
// the baseline. Private to src/decode; each call single-threaded (callers share rows among
// threads); never throws.
#pragma once

#include <cstdint>

namespace nmt::decode::kernels {

// Rows of logits per task when the decoding threads share a step's rows: a row is a few thousand
// exponentials, a task's start costs about as much as one.
constexpr int64_t kRowsPerTask = 4;

// log(sum_v exp(row[v])), computed as max + log(sum exp(row[v] - max)), for n >= 1 values.
float log_normaliser(const float* row, int64_t n);

// The index of the first largest of n >= 1 values (std::max_element's answer, vectorised).
int64_t first_largest(const float* values, int64_t n);

// Greedy search's choice from one row of vocab logits: the first largest among the tokens from
// first_token on, and its log-probability row[id] - log_normaliser(row, vocab), the normaliser
// still over every token. One pass over the row fewer than the two calls above.
struct TokenChoice {
  int64_t id;
  float log_prob;
};
TokenChoice most_likely(const float* row, int64_t vocab, int64_t first_token);

// The `count` best continuations of one sentence's beams: the largest totals
//   beam_scores[b] + (logits[b * vocab + v] - log_normaliser(logits row b))
// over beams b whose score is finite and tokens v >= first_token. Written best first to
// scores[count] and indices[count] (index b * vocab + v); equal totals keep the lower index first;
// slots beyond the finite candidates get -inf and index 0.
void best_continuations(const float* logits,
                        int64_t beams,
                        int64_t vocab,
                        const float* beam_scores,
                        int64_t first_token,
                        int64_t count,
                        float* scores,
                        int64_t* indices);

}  // namespace nmt::decode::kernels
