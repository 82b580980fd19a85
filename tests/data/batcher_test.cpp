#include "nmt/data/batcher.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "nmt/text/vocab.h"

namespace nmt::data {
namespace {

std::vector<EncodedPair> pairs_of_lengths(int count) {
  std::vector<EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    const int length = 1 + (i * 7) % 13;
    pairs.push_back({std::vector<int64_t>(static_cast<std::size_t>(1 + i % 5), 4 + i % 3),
                     std::vector<int64_t>(static_cast<std::size_t>(length), 5)});
  }
  return pairs;
}

std::multiset<std::size_t> all_indices(const BatchPlan& plan) {
  std::multiset<std::size_t> seen;
  for (const auto& batch : plan) seen.insert(batch.begin(), batch.end());
  return seen;
}

TEST(CollateTest, PadsAndShiftsTargetsLikeTheNotebook) {
  const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}}, {{9}, {10, 11, 12}}};
  const Batch batch = collate(pairs, {0, 1});
  EXPECT_TRUE(at::equal(batch.source, at::tensor({4, 5, 6, 9, 0, 0}, at::kLong).view({2, 3})));
  EXPECT_TRUE(
      at::equal(batch.target_in, at::tensor({1, 7, 8, 0, 1, 10, 11, 12}, at::kLong).view({2, 4})));
  EXPECT_TRUE(
      at::equal(batch.target_out, at::tensor({7, 8, 2, 0, 10, 11, 12, 2}, at::kLong).view({2, 4})));
  EXPECT_EQ(batch.source_tokens, 4);
  EXPECT_EQ(batch.target_tokens, 7);
  EXPECT_EQ(batch.padded_target_tokens, 8);
}

TEST(PlanBatchesTest, SentenceBatchesCoverEveryPairOnceAndDependOnlyOnSeedAndEpoch) {
  const auto pairs = pairs_of_lengths(100);
  const BatchingOptions options{32, 0, 5, true};
  const BatchPlan plan = plan_batches(pairs, options, 0);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan.back().size(), 4u);
  const auto seen = all_indices(plan);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), 100u);
  EXPECT_EQ(plan_batches(pairs, options, 0), plan);
  EXPECT_NE(plan_batches(pairs, options, 1), plan);
  const BatchPlan in_order = plan_batches(pairs, BatchingOptions{32, 0, 5, false}, 0);
  EXPECT_EQ(in_order[0][0], 0u);
  EXPECT_EQ(in_order[0][31], 31u);
}

TEST(PlanBatchesTest, TokenBudgetBucketsByLengthAndRespectsTheBudget) {
  const auto pairs = pairs_of_lengths(500);
  const BatchingOptions options{128, 60, 5, true};
  const BatchPlan plan = plan_batches(pairs, options, 0);
  EXPECT_EQ(all_indices(plan).size(), 500u);
  std::size_t padded = 0;
  std::size_t real = 0;
  for (const auto& indices : plan) {
    const Batch batch = collate(pairs, indices);
    EXPECT_LE(batch.padded_target_tokens, 60);
    padded += static_cast<std::size_t>(batch.padded_target_tokens);
    real += static_cast<std::size_t>(batch.target_tokens);
  }
  EXPECT_LT(static_cast<double>(padded - real) / static_cast<double>(padded), 0.05);
  EXPECT_EQ(plan_batches(pairs, options, 0), plan);
}

TEST(PlanBatchesTest, APairLongerThanTheBudgetGetsABatchOfItsOwn) {
  std::vector<EncodedPair> pairs = {{{4}, std::vector<int64_t>(50, 5)}, {{4}, {5}}};
  const BatchPlan plan = plan_batches(pairs, BatchingOptions{128, 10, 1, false}, 0);
  ASSERT_EQ(plan.size(), 2u);
}

}  // namespace
}  // namespace nmt::data
