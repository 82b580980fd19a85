// The loop shared by greedy and sampling search: one hypothesis per source row, a token chosen per
// step by a policy, finished rows dropped from the model's state.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "nmt/decode/search.h"

namespace nmt::decode {

// Log-probabilities [R, V] (fp32) of logits [R, V], with <PAD> and <SOS> impossible: they are
// never targets in training, and a generated <PAD> would be masked out of its own prefix.
at::Tensor next_log_probs(const at::Tensor& logits);

// The next token of every live row and its log-probability.
struct Choice {
  at::Tensor ids;     // int64 [R], CPU
  at::Tensor scores;  // float [R], CPU
};

// Chooses the next token of every live row from logits [R, V].
using TokenPolicy = std::function<Choice(const at::Tensor& logits)>;

// The most likely token of every row but <PAD> and <SOS>, and its log-probability as
// next_log_probs gives it (log p = logit - logsumexp of all logits), without writing the
// log-probabilities out.
Choice most_likely(const at::Tensor& logits);

std::vector<std::vector<Hypothesis>> decode_rows(StepModel& model,
                                                 const at::Tensor& source,
                                                 const std::vector<int64_t>& lengths,
                                                 int64_t max_len,
                                                 const TokenPolicy& choose);

}  // namespace nmt::decode
