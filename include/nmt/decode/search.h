// Search strategies: turn a model's next-token distributions into output sequences.
//
// Strategies see the model only through StepModel (start, step, keep_rows), so tests drive them
// with scripted fakes and the Transformer plugs in through TransformerStepModel. All strategies
// decode a whole batch at once and drop finished rows from the model's state, so finished
// hypotheses stop costing compute.
//
// Input: source ids int64 [B, S] padded with <PAD> and the source lengths; output: B lists of
// hypotheses, best first, ids without <SOS>/<EOS>. Scores are summed log-probabilities under the
// model (including <EOS> when produced). Never logs; throws ConfigError for invalid options.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "nmt/decode/options.h"

namespace nmt::decode {

// All a search may know about a model.
class StepModel {
 public:
  virtual ~StepModel() = default;
  // Encodes source [B, S] and sizes the decoder state to B rows.
  virtual void start(const at::Tensor& source) = 0;
  // Logits [R, V] of the next token after last_ids [R] (<SOS> at the first step); they may live in
  // the model's buffers, so a search reads them before the next step.
  virtual at::Tensor step(const at::Tensor& last_ids) = 0;
  // Keeps, in this order, the state rows given by rows int64 [R'] (reorders beams, drops finished
  // rows).
  virtual void keep_rows(const at::Tensor& rows) = 0;
};

struct Hypothesis {
  std::vector<int64_t> ids;  // output tokens, no <SOS>/<EOS>
  float score = 0.0f;        // summed log-probability (with <EOS> when it was produced)
  bool is_finished = false;  // ended with <EOS> rather than at the length limit
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // source [B, S] ids on the model's device, lengths: real tokens per row.
  [[nodiscard]] virtual std::vector<std::vector<Hypothesis>> search(
      StepModel& model, const at::Tensor& source, const std::vector<int64_t>& lengths) const = 0;
};

// Output length limit for a source of `length` tokens: max_len when set, else 2 * length + 10.
int64_t output_limit(int64_t max_len, int64_t length);

// The most likely token at each step.
class GreedySearch final : public SearchStrategy {
 public:
  explicit GreedySearch(int64_t max_len);
  std::vector<std::vector<Hypothesis>> search(StepModel& model,
                                              const at::Tensor& source,
                                              const std::vector<int64_t>& lengths) const override;

 private:
  int64_t max_len_;
};

// Ancestral sampling from softmax(logits / temperature), restricted to the top_k tokens (0: all)
// and to the smallest set whose probability reaches top_p (1: all). Reproducible for a seed.
class SamplingSearch final : public SearchStrategy {
 public:
  SamplingSearch(double temperature, int64_t top_k, double top_p, uint64_t seed, int64_t max_len);
  std::vector<std::vector<Hypothesis>> search(StepModel& model,
                                              const at::Tensor& source,
                                              const std::vector<int64_t>& lengths) const override;

 private:
  double temperature_;
  int64_t top_k_;
  double top_p_;
  uint64_t seed_;
  int64_t max_len_;
};

// Beam search with length normalisation: hypotheses rank by score / length^length_penalty, where
// the length counts the <EOS> (fairseq's rule). Only an <EOS> among the beam_size best candidates
// of a step ends a hypothesis. When a sentence is done depends on `stop`:
//   kFirst  when beam_size hypotheses have ended (fairseq, CTranslate2);
//   kBest   transformers' generate(): it keeps the beam_size best ended hypotheses and is done when
//           the best open beam, normalised at its present length, ranks no better than the worst
//           of them. A hypothesis cut at the length limit ranks as if one <EOS> of probability 1
//           ended it, as transformers forces one at its limit.
// Returns the n_best ended hypotheses, best first.
class BeamSearch final : public SearchStrategy {
 public:
  BeamSearch(int64_t beam_size,
             double length_penalty,
             int64_t n_best,
             int64_t max_len,
             BeamStop stop = BeamStop::kFirst);
  std::vector<std::vector<Hypothesis>> search(StepModel& model,
                                              const at::Tensor& source,
                                              const std::vector<int64_t>& lengths) const override;

 private:
  int64_t beam_size_;
  double length_penalty_;
  int64_t n_best_;
  int64_t max_len_;
  BeamStop stop_;
};

// Restricts logits [R, V] to the sampling set: divides by temperature, keeps the top_k largest and
// the smallest prefix (by probability) reaching top_p; the rest become -inf.
at::Tensor sampling_logits(const at::Tensor& logits,
                           double temperature,
                           int64_t top_k,
                           double top_p);

// Validates options and builds the strategy they name.
[[nodiscard]] std::unique_ptr<SearchStrategy> make_search(const SearchOptions& options);

}  // namespace nmt::decode
