// The search kernels against LibTorch's log_softmax, logsumexp and topk, the computation they
// replace: the same candidates in the same order, scores within float rounding.
#include "decode/next_token_kernels.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace nmt::decode::kernels {
namespace {

constexpr float kImpossible = -std::numeric_limits<float>::infinity();

TEST(LogNormaliserTest, EqualsLogSumExpForEveryLengthAndMaskedValues) {
  at::manual_seed(3);
  for (const int64_t n : {1, 2, 15, 16, 17, 63, 64, 65, 1000, 8000}) {
    at::Tensor row = at::randn({n}) * 6.0;
    if (n > 2) {
      row[0] = -1e9;  // masked logits, as search tests' models give
      row[1] = kImpossible;
    }
    const float expected = at::logsumexp(row, 0).item<float>();
    const float got = log_normaliser(row.data_ptr<float>(), n);
    EXPECT_NEAR(got, expected, 2e-6 * std::max(1.0f, std::abs(expected))) << "n = " << n;
  }
  const std::vector<float> impossible(4, kImpossible);
  EXPECT_EQ(log_normaliser(impossible.data(), 4), kImpossible);
}

TEST(LogNormaliserTest, AccurateAcrossTheRangeOfExp) {
  // One value x beside zeros: log(exp(x) + 3), with x from far below zero to far above.
  for (float x = -100.0f; x <= 100.0f; x += 0.37f) {
    const std::vector<float> row = {0.0f, x, 0.0f, 0.0f};
    const double expected = std::log(std::exp(static_cast<double>(x)) + 3.0);
    EXPECT_NEAR(log_normaliser(row.data(), 4), expected, 4e-7 * std::max(1.0, std::abs(expected)))
        << "x = " << x;
  }
}

TEST(FirstLargestTest, IsMaxElementsAnswerForEveryLengthAndTies) {
  std::mt19937 generator(11);
  std::uniform_int_distribution<int> value(-20, 20);  // few distinct values: many ties
  for (const int64_t n : {1, 2, 63, 64, 65, 128, 129, 1000, 8000}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> values(static_cast<std::size_t>(n));
      for (float& v : values) v = static_cast<float>(value(generator));
      EXPECT_EQ(first_largest(values.data(), n),
                std::max_element(values.begin(), values.end()) - values.begin())
          << "n = " << n;
    }
  }
}

TEST(MostLikelyTest, IsFirstLargestAndLogNormalisersAnswerToTheBit) {
  // Greedy search's one pass must give what the two calls give, including rows whose largest
  // logit is one of the tokens before first_token, which it finds apart from the rest.
  at::manual_seed(5);
  for (const int64_t vocab : {3, 17, 64, 130, 8000}) {
    for (const int64_t largest_at : {-1, 0, 1}) {  // -1: wherever it falls
      at::Tensor logits = at::randn({vocab}) * 6.0;
      if (largest_at >= 0) logits[largest_at] = 100.0;
      const float* row = logits.data_ptr<float>();
      const TokenChoice chosen = most_likely(row, vocab, 2);
      const int64_t expected_id = 2 + first_largest(row + 2, vocab - 2);
      EXPECT_EQ(chosen.id, expected_id) << "vocab " << vocab << ", largest at " << largest_at;
      EXPECT_EQ(chosen.log_prob, row[expected_id] - log_normaliser(row, vocab))
          << "vocab " << vocab << ", largest at " << largest_at;
    }
  }
}

// LibTorch's computation: log_softmax, <PAD> and <SOS> impossible, plus the beam scores, top-k.
void reference(const at::Tensor& logits,
               const std::vector<float>& beam_scores,
               int64_t count,
               at::Tensor& scores,
               at::Tensor& indices) {
  at::Tensor log_probs = logits.log_softmax(-1);
  log_probs.select(1, 0).fill_(kImpossible);
  log_probs.select(1, 1).fill_(kImpossible);
  const at::Tensor totals = (log_probs + at::tensor(beam_scores).unsqueeze(1)).view({-1});
  std::tie(scores, indices) = totals.topk(count);
}

TEST(BestContinuationsTest, SameCandidatesInTheSameOrderAsLogSoftmaxAndTopK) {
  at::manual_seed(7);
  for (const int64_t vocab : {5, 70, 8000}) {
    const int64_t beams = 5;
    const int64_t count = 10;
    const at::Tensor logits = at::randn({beams, vocab}) * 4.0;
    const std::vector<float> beam_scores = {-0.5f, -1.25f, -2.0f, -3.5f, -0.75f};
    at::Tensor expected_scores;
    at::Tensor expected_indices;
    reference(logits, beam_scores, count, expected_scores, expected_indices);
    std::vector<float> scores(count);
    std::vector<int64_t> indices(count);
    best_continuations(logits.data_ptr<float>(), beams, vocab, beam_scores.data(), 2, count,
                       scores.data(), indices.data());
    for (int64_t j = 0; j < count; ++j) {
      EXPECT_EQ(indices[j], expected_indices[j].item<int64_t>()) << "vocab " << vocab << " #" << j;
      EXPECT_NEAR(scores[j], expected_scores[j].item<float>(), 2e-6) << "vocab " << vocab;
    }
  }
}

TEST(BestContinuationsTest, PlaceholderBeamsAndShortCandidateListsGiveImpossibleSlots) {
  // Beam 1 is a placeholder (-inf): its tokens are never candidates. With 4 tokens, of which 2
  // can be generated, only 2 candidates exist for 5 slots.
  const std::vector<float> logits = {0.0f, 9.0f, 1.0f, 2.0f,   // beam 0
                                     9.0f, 9.0f, 9.0f, 9.0f};  // beam 1
  const std::vector<float> beam_scores = {0.0f, kImpossible};
  std::vector<float> scores(5);
  std::vector<int64_t> indices(5);
  best_continuations(logits.data(), 2, 4, beam_scores.data(), 2, 5, scores.data(), indices.data());
  EXPECT_EQ(indices[0], 3);
  EXPECT_EQ(indices[1], 2);
  const float normaliser =
      std::log(std::exp(0.0f) + std::exp(9.0f) + std::exp(1.0f) + std::exp(2.0f));
  EXPECT_NEAR(scores[0], 2.0f - normaliser, 1e-5);
  EXPECT_NEAR(scores[1], 1.0f - normaliser, 1e-5);
  for (int64_t j = 2; j < 5; ++j) {
    EXPECT_EQ(scores[j], kImpossible);
    EXPECT_EQ(indices[j], 0);
  }
}

TEST(BestContinuationsTest, EqualTotalsKeepTheLowerIndexFirst) {
  // Two beams with the same scores and logits: every total appears twice; beam 0's comes first.
  std::vector<float> logits(2 * 200, 0.0f);
  for (int64_t v = 0; v < 200; ++v) {
    logits[v] = logits[200 + v] = static_cast<float>(v % 7);
  }
  const std::vector<float> beam_scores = {-1.0f, -1.0f};
  std::vector<float> scores(6);
  std::vector<int64_t> indices(6);
  best_continuations(logits.data(), 2, 200, beam_scores.data(), 2, 6, scores.data(),
                     indices.data());
  // The largest logit, 6, is at tokens 6, 13, 20, ...: the six lowest flat indices of those.
  EXPECT_EQ(indices, (std::vector<int64_t>{6, 13, 20, 27, 34, 41}));
  for (int64_t j = 1; j < 6; ++j) EXPECT_EQ(scores[j], scores[0]);
}

}  // namespace
}  // namespace nmt::decode::kernels
