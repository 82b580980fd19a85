#include "decode/row_decoding.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <limits>

#include "decode/next_token_kernels.h"
#include "nmt/text/vocab.h"

namespace nmt::decode {

at::Tensor next_log_probs(const at::Tensor& logits) {
  at::Tensor log_probs = logits.to(at::kFloat).log_softmax(-1);
  log_probs.select(1, text::kPadId).fill_(-std::numeric_limits<float>::infinity());
  log_probs.select(1, text::kSosId).fill_(-std::numeric_limits<float>::infinity());
  return log_probs;
}

std::vector<std::vector<Hypothesis>> decode_rows(StepModel& model,
                                                 const at::Tensor& source,
                                                 const std::vector<int64_t>& lengths,
                                                 int64_t max_len,
                                                 const TokenPolicy& choose) {
  const auto rows = static_cast<int64_t>(lengths.size());
  std::vector<Hypothesis> hypotheses(static_cast<std::size_t>(rows));
  std::vector<int64_t> live(static_cast<std::size_t>(rows));  // original row of each state row
  int64_t longest_limit = 0;
  for (int64_t r = 0; r < rows; ++r) {
    live[static_cast<std::size_t>(r)] = r;
    longest_limit =
        std::max(longest_limit, output_limit(max_len, lengths[static_cast<std::size_t>(r)]));
  }
  model.start(source);
  at::Tensor last = at::full({rows}, text::kSosId, source.options().dtype(at::kLong));
  for (int64_t t = 0; t < longest_limit && !live.empty(); ++t) {
    const Choice choice = choose(model.step(last));
    const at::Tensor& chosen = choice.ids;
    const auto* ids = chosen.data_ptr<int64_t>();
    const auto* scores = choice.scores.data_ptr<float>();
    std::vector<int64_t> keep;
    std::vector<int64_t> next_live;
    for (std::size_t i = 0; i < live.size(); ++i) {
      Hypothesis& hypothesis = hypotheses[static_cast<std::size_t>(live[i])];
      hypothesis.score += scores[i];
      if (ids[i] == text::kEosId) {
        hypothesis.is_finished = true;
        continue;
      }
      hypothesis.ids.push_back(ids[i]);
      if (static_cast<int64_t>(hypothesis.ids.size()) >=
          output_limit(max_len, lengths[static_cast<std::size_t>(live[i])])) {
        continue;
      }
      keep.push_back(static_cast<int64_t>(i));
      next_live.push_back(live[i]);
    }
    if (keep.size() != live.size() && !keep.empty()) {
      const at::Tensor keep_rows = at::tensor(keep, at::kLong).to(source.device());
      model.keep_rows(keep_rows);
      last = chosen.to(source.device()).index_select(0, keep_rows);
    } else {
      last = chosen.to(source.device());
    }
    live = std::move(next_live);
  }
  std::vector<std::vector<Hypothesis>> out;
  out.reserve(hypotheses.size());
  for (Hypothesis& hypothesis : hypotheses) out.push_back({std::move(hypothesis)});
  return out;
}

Choice most_likely(const at::Tensor& logits) {
  // <PAD> and <SOS> are ids 0 and 1, so the tokens that can follow are the columns from 2 on; the
  // softmax's normaliser is over every column, as next_log_probs's.
  static_assert(text::kPadId == 0 && text::kSosId == 1, "the first two ids are never generated");
  const at::Tensor all = logits.to(at::kFloat).cpu().contiguous();
  const int64_t rows = all.size(0);
  const int64_t vocab = all.size(1);
  Choice choice{at::empty({rows}, at::kLong), at::empty({rows}, at::kFloat)};
  const float* data = all.data_ptr<float>();
  int64_t* ids = choice.ids.data_ptr<int64_t>();
  float* scores = choice.scores.data_ptr<float>();
  // Rows are independent, so the decoding threads share them (each row's work is the same whoever
  // does it); alone, this pass was the serial tenth of a decoding step.
  at::parallel_for(0, rows, kernels::kRowsPerTask, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const kernels::TokenChoice chosen = kernels::most_likely(data + r * vocab, vocab, 2);
      ids[r] = chosen.id;
      scores[r] = chosen.log_prob;
    }
  });
  return choice;
}

GreedySearch::GreedySearch(int64_t max_len) : max_len_(max_len) {}

std::vector<std::vector<Hypothesis>> GreedySearch::search(
    StepModel& model, const at::Tensor& source, const std::vector<int64_t>& lengths) const {
  return decode_rows(model, source, lengths, max_len_, most_likely);
}

SamplingSearch::SamplingSearch(
    double temperature, int64_t top_k, double top_p, uint64_t seed, int64_t max_len)
    : temperature_(temperature), top_k_(top_k), top_p_(top_p), seed_(seed), max_len_(max_len) {}

std::vector<std::vector<Hypothesis>> SamplingSearch::search(
    StepModel& model, const at::Tensor& source, const std::vector<int64_t>& lengths) const {
  // A generator of its own: the same seed gives the same samples whatever else drew random numbers.
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed_);
  return decode_rows(model, source, lengths, max_len_, [&](const at::Tensor& logits) {
    const at::Tensor log_probs = next_log_probs(logits).cpu();
    const at::Tensor restricted = sampling_logits(log_probs, temperature_, top_k_, top_p_);
    const at::Tensor ids =
        at::multinomial(restricted.softmax(-1), 1, /*replacement=*/false, generator).squeeze(1);
    return Choice{ids, log_probs.gather(1, ids.unsqueeze(1)).squeeze(1)};
  });
}

}  // namespace nmt::decode
