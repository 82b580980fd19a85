#include "nmt/decode/search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "decode/fake_step_model.h"
#include "nmt/decode/transformer_step_model.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/text/vocab.h"
#include "torch_test_utils.h"

namespace nmt::decode {
namespace {

using text::kEosId;
using text::kSosId;

// Vocabulary of 8: <SOS> -> 4 (0.6) | 5 (0.4); 4 -> 6 (0.55) | 7 (0.45); 5 -> <EOS> (0.99) | 6;
// 6 and 7 -> <EOS>. Greedy finds 4 6 (p = 0.33); the most likely sequence is 5 (p = 0.396).
testing::MarkovStepModel chain() {
  return testing::MarkovStepModel(8, {{kSosId, {0, 0, 0, 0, 0.6, 0.4, 0, 0}},
                                      {4, {0, 0, 0, 0, 0, 0, 0.55, 0.45}},
                                      {5, {0, 0, 0.99, 0, 0, 0, 0.01, 0}},
                                      {6, {0, 0, 1.0, 0, 0, 0, 0, 0}},
                                      {7, {0, 0, 1.0, 0, 0, 0, 0, 0}}});
}

at::Tensor sources(int64_t rows) { return at::full({rows, 3}, 4, at::kLong); }

TEST(GreedySearchTest, FollowsTheMostLikelyTokenUntilEos) {
  auto model = chain();
  const auto result = GreedySearch(0).search(model, sources(2), {3, 3});
  ASSERT_EQ(result.size(), 2u);
  EXPECT_EQ(result[0][0].ids, (std::vector<int64_t>{4, 6}));
  EXPECT_TRUE(result[0][0].is_finished);
  EXPECT_NEAR(result[0][0].score, std::log(0.6) + std::log(0.55) + std::log(1.0), 1e-5);
}

TEST(GreedySearchTest, StopsAtTheLengthLimit) {
  testing::MarkovStepModel loop(
      8, {{kSosId, {0, 0, 0, 0, 1, 0, 0, 0}}, {4, {0, 0, 0, 0, 1, 0, 0, 0}}});
  const auto result = GreedySearch(5).search(loop, sources(1), {3});
  EXPECT_EQ(result[0][0].ids.size(), 5u);
  EXPECT_FALSE(result[0][0].is_finished);
  EXPECT_EQ(output_limit(0, 7), 24);
}

TEST(BeamSearchTest, FindsTheSequenceGreedyMisses) {
  auto model = chain();
  // Raw scores (length_penalty 0): 5 <EOS> (0.396) beats greedy's 4 6 <EOS> (0.33).
  const auto raw = BeamSearch(2, 0.0, 2, 0).search(model, sources(1), {3});
  ASSERT_EQ(raw[0].size(), 2u);
  EXPECT_EQ(raw[0][0].ids, (std::vector<int64_t>{5}));
  EXPECT_NEAR(raw[0][0].score, std::log(0.4 * 0.99), 1e-5);
  EXPECT_EQ(raw[0][1].ids, (std::vector<int64_t>{4, 6}));
  // Normalised by length (penalty 1): log(0.33) / 3 > log(0.27) / 3 > log(0.396) / 2.
  const auto normalised = BeamSearch(2, 1.0, 2, 0).search(model, sources(1), {3});
  EXPECT_EQ(normalised[0][0].ids, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(normalised[0][1].ids, (std::vector<int64_t>{4, 7}));
}

// Vocabulary of 8: <SOS> -> 4 (0.5) | <EOS> (0.3) | 5 (0.2); 4 -> 6 (0.9) | <EOS> (0.1);
// 5 and 6 -> <EOS>. With two beams, the empty output and 5 end first (ranks log 0.3 / 1 and
// log 0.2 / 2); the open beam 4 6 (log 0.45 / 2) still outranks both, and ends as the best of all
// (log 0.45 / 3).
testing::MarkovStepModel late_winner() {
  return testing::MarkovStepModel(8, {{kSosId, {0, 0, 0.3, 0, 0.5, 0.2, 0, 0}},
                                      {4, {0, 0, 0.1, 0, 0, 0, 0.9, 0}},
                                      {5, {0, 0, 1.0, 0, 0, 0, 0, 0}},
                                      {6, {0, 0, 1.0, 0, 0, 0, 0, 0}}});
}

TEST(BeamSearchTest, FirstStopsWhenBeamSizeHypothesesEnded) {
  auto model = late_winner();
  const auto first = BeamSearch(2, 1.0, 2, 0, BeamStop::kFirst).search(model, sources(1), {3});
  ASSERT_EQ(first[0].size(), 2u);
  EXPECT_EQ(first[0][0].ids, (std::vector<int64_t>{5}));
  EXPECT_EQ(first[0][1].ids, (std::vector<int64_t>{}));
}

TEST(BeamSearchTest, BestSearchesOnWhileAnOpenBeamCanDisplaceAnEndedOne) {
  auto model = late_winner();
  const auto best = BeamSearch(2, 1.0, 2, 0, BeamStop::kBest).search(model, sources(1), {3});
  ASSERT_EQ(best[0].size(), 2u) << "only the beam_size best ended hypotheses are kept";
  EXPECT_EQ(best[0][0].ids, (std::vector<int64_t>{4, 6}));
  EXPECT_NEAR(best[0][0].score, std::log(0.45), 1e-5);
  EXPECT_EQ(best[0][1].ids, (std::vector<int64_t>{5}));
}

// Every beam starts from <SOS>: the first step decodes one row per sentence, the next k.
TEST(BeamSearchTest, TheFirstStepDecodesOneRowPerSentence) {
  auto model = chain();
  const auto result = BeamSearch(2, 0.0, 1, 0).search(model, sources(3), {3, 3, 3});
  ASSERT_GE(model.rows_per_step().size(), 2u);
  EXPECT_EQ(model.rows_per_step()[0], 3);
  EXPECT_EQ(model.rows_per_step()[1], 6);
  for (const auto& sentence : result) EXPECT_EQ(sentence[0].ids, (std::vector<int64_t>{5}));
}

TEST(BeamSearchTest, BeamOfOneMatchesGreedyOnATransformer) {
  auto model = testing::tiny_model(model::NormPosition::kPre, 12, 3);
  torch::manual_seed(4);
  const auto source = torch::randint(4, 12, {5, 6}, torch::kLong);
  const std::vector<int64_t> lengths(5, 6);
  TransformerStepModel step_model(model);
  const auto greedy = GreedySearch(0).search(step_model, source, lengths);
  const auto beam = BeamSearch(1, 1.0, 1, 0).search(step_model, source, lengths);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(beam[i][0].ids, greedy[i][0].ids) << i;
    EXPECT_NEAR(beam[i][0].score, greedy[i][0].score, 1e-4) << i;
  }
}

TEST(SamplingSearchTest, TopKOneAndNearZeroTemperatureMatchGreedy) {
  auto model = testing::tiny_model(model::NormPosition::kPost, 12, 5);
  torch::manual_seed(6);
  const auto source = torch::randint(4, 12, {4, 5}, torch::kLong);
  const std::vector<int64_t> lengths(4, 5);
  TransformerStepModel step_model(model);
  const auto greedy = GreedySearch(0).search(step_model, source, lengths);
  const auto top1 = SamplingSearch(1.0, 1, 1.0, 99, 0).search(step_model, source, lengths);
  const auto cold = SamplingSearch(1e-6, 0, 1.0, 99, 0).search(step_model, source, lengths);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(top1[i][0].ids, greedy[i][0].ids);
    EXPECT_EQ(cold[i][0].ids, greedy[i][0].ids);
  }
}

TEST(SamplingSearchTest, SameSeedSameSamplesAndOtherSeedsDiffer) {
  testing::MarkovStepModel uniform(30, {});
  const auto a =
      SamplingSearch(1.0, 0, 1.0, 7, 20).search(uniform, sources(8), std::vector<int64_t>(8, 3));
  const auto b =
      SamplingSearch(1.0, 0, 1.0, 7, 20).search(uniform, sources(8), std::vector<int64_t>(8, 3));
  const auto c =
      SamplingSearch(1.0, 0, 1.0, 8, 20).search(uniform, sources(8), std::vector<int64_t>(8, 3));
  bool differs = false;
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(a[i][0].ids, b[i][0].ids);
    differs = differs || a[i][0].ids != c[i][0].ids;
  }
  EXPECT_TRUE(differs);
}

TEST(SamplingSearchTest, NeverLeavesTheTopKOrTopPSet) {
  // After <SOS>: p = [.., 4: 0.5, 5: 0.3, 6: 0.15, 7: 0.05]; every path ends right after.
  std::map<int64_t, std::vector<double>> table = {{kSosId, {0, 0, 0, 0, 0.5, 0.3, 0.15, 0.05}}};
  for (int64_t t = 4; t < 8; ++t) table[t] = {0, 0, 1.0, 0, 0, 0, 0, 0};
  testing::MarkovStepModel model(8, table);
  const std::vector<int64_t> lengths(200, 3);
  std::set<int64_t> top_k_seen, top_p_seen;
  for (const auto& h : SamplingSearch(1.0, 2, 1.0, 1, 0).search(model, sources(200), lengths))
    top_k_seen.insert(h[0].ids[0]);
  for (const auto& h : SamplingSearch(1.0, 0, 0.75, 1, 0).search(model, sources(200), lengths))
    top_p_seen.insert(h[0].ids[0]);
  EXPECT_EQ(top_k_seen, (std::set<int64_t>{4, 5}));
  EXPECT_EQ(top_p_seen, (std::set<int64_t>{4, 5}));  // 0.5 < 0.75 <= 0.8: the set is {4, 5}
}

TEST(SamplingLogitsTest, MasksExactlyTheTokensOutsideTheSet) {
  const auto logits = torch::log(torch::tensor({0.1, 0.2, 0.4, 0.3}, torch::kFloat)).view({1, 4});
  const auto kept = [](const at::Tensor& x) { return torch::isfinite(x).view({4}); };
  EXPECT_TRUE(torch::equal(kept(sampling_logits(logits, 1.0, 2, 1.0)),
                           torch::tensor({false, false, true, true})));
  EXPECT_TRUE(torch::equal(kept(sampling_logits(logits, 1.0, 0, 0.4)),
                           torch::tensor({false, false, true, false})));
  EXPECT_TRUE(torch::equal(kept(sampling_logits(logits, 1.0, 0, 0.41)),
                           torch::tensor({false, false, true, true})));
  EXPECT_TRUE(testing::all_close(sampling_logits(logits, 2.0, 0, 1.0), logits / 2.0));
}

TEST(MakeSearchTest, TemperatureAndTopPMustHoldInAFloat) {
  const auto error_of = [](double temperature, double top_p) {
    SearchOptions options;
    options.strategy = Strategy::kSample;
    options.temperature = temperature;
    options.top_p = top_p;
    try {
      (void)make_search(options);
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(1e-300, 1.0), "temperature: expected a number from " +
                                       format_number(std::numeric_limits<float>::min()) +
                                       " (the smallest normal float) to " +
                                       format_number(std::numeric_limits<float>::max()) +
                                       ", got 1e-300");
  EXPECT_EQ(error_of(1.0, 1e-300), "top_p: expected a number from " +
                                       format_number(std::numeric_limits<float>::min()) +
                                       " (the smallest normal float) to 1, got 1e-300");
  EXPECT_NE(error_of(1e300, 1.0), "accepted");
  EXPECT_NE(error_of(std::nan(""), 1.0), "accepted");
  EXPECT_NE(error_of(1.0, 1.5), "accepted");
  EXPECT_EQ(error_of(1e-6, 1e-6), "accepted");
}

TEST(MakeSearchTest, ValidatesOptions) {
  SearchOptions options;
  options.strategy = Strategy::kBeam;
  options.beam_size = 2;
  options.n_best = 3;
  EXPECT_THROW(make_search(options), ConfigError);
  options.n_best = 2;
  EXPECT_NE(dynamic_cast<BeamSearch*>(make_search(options).get()), nullptr);
}

}  // namespace
}  // namespace nmt::decode
