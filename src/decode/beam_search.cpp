#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "decode/next_token_kernels.h"
#include "decode/row_decoding.h"
#include "nmt/decode/search.h"
#include "nmt/text/vocab.h"

namespace nmt::decode {
namespace {

constexpr float kImpossible = -std::numeric_limits<float>::infinity();

struct Beam {
  std::vector<int64_t> ids;
  float score = 0.0f;
  int64_t row = 0;  // state row it extends
};

// An ended hypothesis and the normalised score it ranks by.
struct Ended {
  Hypothesis hypothesis;
  double rank = 0.0;
};

// One source sentence while its beams are alive; its K beams occupy K consecutive state rows.
struct Sentence {
  std::size_t index = 0;
  int64_t limit = 0;
  std::vector<Beam> beams;  // best first
  std::vector<Ended> ended;
};

struct BeamRule {
  int64_t beam_size = 0;
  double length_penalty = 0.0;
  BeamStop stop = BeamStop::kFirst;

  double normalized(double score, std::size_t length) const {
    return score / std::pow(std::max(static_cast<double>(length), 1.0), length_penalty);
  }

  // kBest keeps only the beam_size best ended hypotheses; kFirst keeps every one.
  void end(Sentence& sentence, Hypothesis hypothesis, std::size_t length) const {
    const double rank = normalized(hypothesis.score, length);
    sentence.ended.push_back({std::move(hypothesis), rank});
    if (stop == BeamStop::kBest && static_cast<int64_t>(sentence.ended.size()) > beam_size) {
      const auto worst =
          std::min_element(sentence.ended.begin(), sentence.ended.end(),
                           [](const Ended& a, const Ended& b) { return a.rank < b.rank; });
      sentence.ended.erase(worst);
    }
  }

  // kBest: whether the best open beam, at its present length, could still displace an ended one.
  bool can_improve(const Sentence& sentence) const {
    if (static_cast<int64_t>(sentence.ended.size()) < beam_size) return true;
    double worst = std::numeric_limits<double>::infinity();
    for (const Ended& ended : sentence.ended) worst = std::min(worst, ended.rank);
    const Beam& best = sentence.beams.front();
    return normalized(best.score, best.ids.size()) > worst;
  }
};

// Advances one sentence by one step from its candidates (best first); returns true when it is done.
bool advance(Sentence& sentence,
             const float* scores,
             const int64_t* indices,
             int64_t candidates,
             int64_t vocab,
             const BeamRule& rule,
             int64_t step) {
  const int64_t beam_size = rule.beam_size;
  std::vector<Beam> next;
  for (int64_t j = 0; j < candidates; ++j) {
    if (scores[j] == kImpossible) break;
    const Beam& from = sentence.beams[static_cast<std::size_t>(indices[j] / vocab)];
    const int64_t token = indices[j] % vocab;
    if (token == text::kEosId) {
      // As in fairseq, only an <EOS> ranked among the best beam_size candidates ends a hypothesis.
      if (j < beam_size) rule.end(sentence, {from.ids, scores[j], true}, from.ids.size() + 1);
      continue;
    }
    if (static_cast<int64_t>(next.size()) < beam_size) {
      Beam beam{from.ids, scores[j], from.row};
      beam.ids.push_back(token);
      next.push_back(std::move(beam));
    }
  }
  sentence.beams = std::move(next);
  const bool is_at_limit = step + 1 >= sentence.limit;
  if (rule.stop == BeamStop::kFirst) {
    const bool is_full = static_cast<int64_t>(sentence.ended.size()) >= beam_size;
    if (!is_full && (is_at_limit || sentence.beams.empty())) {
      for (const Beam& beam : sentence.beams)
        rule.end(sentence, {beam.ids, beam.score, false}, beam.ids.size());
      return true;
    }
    return is_full;
  }
  if (sentence.beams.empty() || !rule.can_improve(sentence)) return true;
  if (is_at_limit) {
    for (const Beam& beam : sentence.beams)
      rule.end(sentence, {beam.ids, beam.score, false}, beam.ids.size() + 1);
    return true;
  }
  return false;
}

// The best 2k continuations of each live sentence: scores and flat indices (beam * V + token)
// into its beams' next-token distributions, best first, on the CPU.
struct Candidates {
  std::vector<float> scores;     // [live, count]
  std::vector<int64_t> indices;  // [live, count]
  int64_t count = 0;             // 2k, or all beams * V when smaller
  int64_t vocab = 0;
};

// `beams` rows of logits per live sentence: k, or 1 at the first step.
Candidates top_candidates(const at::Tensor& logits,
                          const std::vector<Sentence>& live,
                          int64_t beams,
                          int64_t k) {
  std::vector<float> beam_scores;
  for (const Sentence& sentence : live) {
    for (const Beam& beam : sentence.beams) beam_scores.push_back(beam.score);
  }
  Candidates candidates;
  candidates.vocab = logits.size(1);
  candidates.count = std::min<int64_t>(2 * k, beams * candidates.vocab);
  const auto size = static_cast<std::size_t>(static_cast<int64_t>(live.size()) * candidates.count);
  candidates.scores.resize(size);
  candidates.indices.resize(size);
  if (logits.device().is_cpu()) {
    // <PAD> and <SOS> (ids 0 and 1) are never generated: tokens from 2 on.
    static_assert(text::kPadId == 0 && text::kSosId == 1, "the first two ids are never generated");
    const at::Tensor all = logits.to(at::kFloat).contiguous();
    // Sentences are independent: the decoding threads share them, each writing its own slots.
    const auto sentences = static_cast<int64_t>(live.size());
    const int64_t grain = std::max<int64_t>(1, kernels::kRowsPerTask / beams);
    at::parallel_for(0, sentences, grain, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        const int64_t first_row = s * beams;
        kernels::best_continuations(all.data_ptr<float>() + first_row * candidates.vocab, beams,
                                    candidates.vocab, beam_scores.data() + first_row, 2,
                                    candidates.count,
                                    candidates.scores.data() + s * candidates.count,
                                    candidates.indices.data() + s * candidates.count);
      }
    });
    return candidates;
  }
  const at::Tensor log_probs = next_log_probs(logits);
  const at::Tensor totals =
      (log_probs + at::tensor(beam_scores).to(logits.device()).unsqueeze(1))
          .view({static_cast<int64_t>(live.size()), beams * candidates.vocab});
  const auto [top_scores, top_indices] = totals.topk(candidates.count, -1);
  const at::Tensor scores = top_scores.cpu().contiguous();
  const at::Tensor indices = top_indices.cpu().contiguous();
  std::copy_n(scores.data_ptr<float>(), size, candidates.scores.data());
  std::copy_n(indices.data_ptr<int64_t>(), size, candidates.indices.data());
  return candidates;
}

// A finished sentence's n_best hypotheses, best first by normalised score.
std::vector<Hypothesis> best_ended(Sentence& sentence, int64_t n_best) {
  std::stable_sort(sentence.ended.begin(), sentence.ended.end(),
                   [](const Ended& a, const Ended& b) { return a.rank > b.rank; });
  std::vector<Hypothesis> best;
  for (Ended& ended : sentence.ended) {
    if (static_cast<int64_t>(best.size()) == n_best) break;
    best.push_back(std::move(ended.hypothesis));
  }
  return best;
}

// Sentences that go on to the next step, and the state rows and last tokens of their beams.
struct NextStep {
  std::vector<Sentence> live;
  std::vector<int64_t> rows;
  std::vector<int64_t> tokens;
};

}  // namespace

BeamSearch::BeamSearch(
    int64_t beam_size, double length_penalty, int64_t n_best, int64_t max_len, BeamStop stop)
    : beam_size_(beam_size),
      length_penalty_(length_penalty),
      n_best_(n_best),
      max_len_(max_len),
      stop_(stop) {}

std::vector<std::vector<Hypothesis>> BeamSearch::search(StepModel& model,
                                                        const at::Tensor& source,
                                                        const std::vector<int64_t>& lengths) const {
  const int64_t k = beam_size_;
  const BeamRule rule{k, length_penalty_, stop_};
  const auto device = source.device();
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(device);
  // The first step decodes one row per sentence: k copies of it would only repeat its
  // candidates. The rows become k per sentence when the step's k best continuations are kept.
  std::vector<Sentence> live;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    Sentence sentence{i, output_limit(max_len_, lengths[i]), {}, {}};
    sentence.beams.push_back({{}, 0.0f, static_cast<int64_t>(i)});
    live.push_back(std::move(sentence));
  }
  model.start(source);
  at::Tensor last = at::full({static_cast<int64_t>(lengths.size())}, text::kSosId, long_options);
  std::vector<std::vector<Hypothesis>> results(lengths.size());
  for (int64_t step = 0, beams = 1; !live.empty(); ++step, beams = k) {
    const Candidates candidates = top_candidates(model.step(last), live, beams, k);
    NextStep next;
    for (std::size_t s = 0; s < live.size(); ++s) {
      Sentence& sentence = live[s];
      for (int64_t b = 0; b < beams; ++b) {
        sentence.beams[static_cast<std::size_t>(b)].row = static_cast<int64_t>(s) * beams + b;
      }
      const std::size_t first = s * static_cast<std::size_t>(candidates.count);
      if (advance(sentence, candidates.scores.data() + first, candidates.indices.data() + first,
                  candidates.count, candidates.vocab, rule, step)) {
        results[sentence.index] = best_ended(sentence, n_best_);
        continue;
      }
      while (static_cast<int64_t>(sentence.beams.size()) < k) {  // vocabularies smaller than k
        Beam filler = sentence.beams.back();
        filler.score = kImpossible;
        sentence.beams.push_back(std::move(filler));
      }
      for (const Beam& beam : sentence.beams) {
        next.rows.push_back(beam.row);
        next.tokens.push_back(beam.ids.back());
      }
      next.live.push_back(std::move(sentence));
    }
    live = std::move(next.live);
    if (live.empty()) break;
    model.keep_rows(at::tensor(next.rows, at::kLong).to(device));
    last = at::tensor(next.tokens, at::kLong).to(device);
  }
  return results;
}

}  // namespace nmt::decode
