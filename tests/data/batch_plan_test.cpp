#include "nmt/data/batch_plan.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "nmt/error.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/vocab.h"
#include "nmt/text/word_tokenizer.h"
#include "tokenizer_test_utils.h"

namespace nmt::data {
namespace {

EncodedCorpus pairs_of_lengths(int count) {
  std::vector<EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    const int length = 1 + (i * 7) % 13;
    pairs.push_back({std::vector<int64_t>(static_cast<std::size_t>(1 + i % 5), 4 + i % 3),
                     std::vector<int64_t>(static_cast<std::size_t>(length), 5)});
  }
  return EncodedCorpus(pairs);
}

// The plan's pairs, batch after batch, as training reads them.
std::vector<std::size_t> pairs_in_training_order(const BatchPlan& plan) {
  std::vector<std::size_t> read;
  for (std::size_t b = 0; b < plan.size(); ++b) {
    const std::vector<std::size_t> batch = plan.batch(b);
    read.insert(read.end(), batch.begin(), batch.end());
  }
  return read;
}

std::multiset<std::size_t> all_indices(const BatchPlan& plan) {
  const std::vector<std::size_t> read = pairs_in_training_order(plan);
  return {read.begin(), read.end()};
}

// The share of padding in the plan's batches, each checked to hold at most max_tokens padded
// target tokens.
double padding_within(const EncodedCorpus& pairs, const BatchPlan& plan, int64_t max_tokens) {
  std::size_t padded = 0;
  std::size_t real = 0;
  for (std::size_t b = 0; b < plan.size(); ++b) {
    const Batch batch = collate(pairs, plan.batch(b));
    EXPECT_LE(batch.padded_target_tokens, max_tokens) << "batch " << b;
    padded += static_cast<std::size_t>(batch.padded_target_tokens);
    real += static_cast<std::size_t>(batch.target_tokens);
  }
  return static_cast<double>(padded - real) / static_cast<double>(padded);
}

TEST(CollateTest, PadsAndShiftsTargetsLikeTheNotebook) {
  const EncodedCorpus pairs({{{4, 5, 6}, {7, 8}}, {{9}, {10, 11, 12}}});
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
  EXPECT_EQ(plan.batch(3).size(), 4u);
  const auto seen = all_indices(plan);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), 100u);
  EXPECT_EQ(plan_batches(pairs, options, 0), plan);
  EXPECT_NE(plan_batches(pairs, options, 1), plan);
  const BatchPlan in_order = plan_batches(pairs, BatchingOptions{32, 0, 5, false}, 0);
  EXPECT_EQ(in_order.batch(0)[0], 0u);
  EXPECT_EQ(in_order.batch(0)[31], 31u);
}

TEST(PlanBatchesTest, TokenBudgetBucketsByLengthAndRespectsTheBudget) {
  const auto pairs = pairs_of_lengths(500);
  const BatchingOptions options{128, 60, 5, true};
  const BatchPlan plan = plan_batches(pairs, options, 0);
  EXPECT_EQ(all_indices(plan).size(), 500u);
  EXPECT_LT(padding_within(pairs, plan, 60), 0.05);
  EXPECT_EQ(plan_batches(pairs, options, 0), plan);
}

TEST(PlanBatchesTest, TokenBatchesHoldPairsSortedByTargetThenSourceLength) {
  const auto pairs = pairs_of_lengths(300);
  const auto key = [&pairs](std::size_t pair) {
    return std::make_pair(pairs.target_length(pair), pairs.source_length(pair));
  };
  const BatchPlan in_order = plan_batches(pairs, BatchingOptions{128, 40, 5, false}, 0);
  const std::vector<std::size_t> sorted = pairs_in_training_order(in_order);
  ASSERT_EQ(sorted.size(), 300u);
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    ASSERT_TRUE(key(sorted[i - 1]) < key(sorted[i]) ||
                (key(sorted[i - 1]) == key(sorted[i]) && sorted[i - 1] < sorted[i]))
        << "position " << i;
  }
  // Shuffled, the same lengths batch after batch, in another order; ties broken otherwise.
  const BatchPlan shuffled = plan_batches(pairs, BatchingOptions{128, 40, 5, true}, 0);
  ASSERT_EQ(shuffled.size(), in_order.size());
  std::multiset<std::vector<std::pair<std::size_t, std::size_t>>> shuffled_keys;
  std::multiset<std::vector<std::pair<std::size_t, std::size_t>>> in_order_keys;
  bool same_order = true;
  for (std::size_t b = 0; b < shuffled.size(); ++b) {
    std::vector<std::pair<std::size_t, std::size_t>> keys;
    for (const std::size_t pair : shuffled.batch(b)) keys.push_back(key(pair));
    shuffled_keys.insert(keys);
    keys.clear();
    for (const std::size_t pair : in_order.batch(b)) keys.push_back(key(pair));
    in_order_keys.insert(keys);
    same_order = same_order && shuffled.batch(b) == in_order.batch(b);
  }
  EXPECT_EQ(shuffled_keys, in_order_keys);
  EXPECT_FALSE(same_order);
}

TEST(PlanBatchesTest, APairLongerThanTheBudgetGetsABatchOfItsOwn) {
  const EncodedCorpus pairs({{{4}, std::vector<int64_t>(50, 5)}, {{4}, {5}}});
  const BatchPlan plan = plan_batches(pairs, BatchingOptions{128, 10, 1, false}, 0);
  ASSERT_EQ(plan.size(), 2u);
}

// An epoch that fits one block is planned as nmt planned every epoch before it planned by blocks
// (these batches come from that code), so that runs started before go on with the same batches.
TEST(PlanBatchesTest, AnEpochOfOneBlockIsPlannedAsBefore) {
  const auto pairs = pairs_of_lengths(500);
  const BatchPlan tokens = plan_batches(pairs, BatchingOptions{128, 60, 5, true}, 2);
  ASSERT_EQ(tokens.size(), 71u);
  EXPECT_EQ(tokens.batch(0), (std::vector<std::size_t>{400, 465, 231, 166, 491, 361, 426, 36}));
  EXPECT_EQ(tokens.batch(1), (std::vector<std::size_t>{445, 471, 341, 406, 211, 276}));
  EXPECT_EQ(tokens.batch(70), (std::vector<std::size_t>{127, 218, 413, 23, 153, 88, 283, 348}));
  const BatchPlan sentences = plan_batches(pairs, BatchingOptions{16, 0, 5, true}, 2);
  ASSERT_EQ(sentences.size(), 32u);
  EXPECT_EQ(sentences.batch(0), (std::vector<std::size_t>{12, 438, 178, 58, 376, 26, 9, 169, 110,
                                                          432, 14, 321, 276, 62, 69, 286}));
  EXPECT_EQ(sentences.batch(31), (std::vector<std::size_t>{100, 19, 95, 195}));
}

TEST(PlanBatchesTest, AnEpochOfManyBlocksTrainsEveryPairOnceWithinTheBudget) {
  const auto pairs = pairs_of_lengths(2000);
  const BatchingOptions options{128, 60, 5, true, /*block_pairs=*/300};
  const BatchPlan plan = plan_batches(pairs, options, 0);
  const auto seen = all_indices(plan);
  EXPECT_EQ(seen.size(), 2000u);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), 2000u);
  EXPECT_LT(padding_within(pairs, plan, 60), 0.1);
  // Blocks are dealt at random: the first batch is not made of the first block_pairs pairs.
  const std::vector<std::size_t> first = plan.batch(0);
  EXPECT_GT(*std::max_element(first.begin(), first.end()), 300u);
  EXPECT_EQ(plan_batches(pairs, options, 0), plan);
  EXPECT_NE(plan_batches(pairs, options, 1), plan);
}

// A resumed run asks for the batch it stopped at first; each block is planned from the seed, the
// epoch and its number alone, so that it gets what the uninterrupted run read.
TEST(PlanBatchesTest, BatchesOfManyBlocksAreTheSameReadFromAnywhere) {
  const auto pairs = pairs_of_lengths(2000);
  for (const int64_t max_tokens : {0, 60}) {
    const BatchingOptions options{16, max_tokens, 5, true, /*block_pairs=*/300};
    const BatchPlan in_order = plan_batches(pairs, options, 3);
    std::vector<std::vector<std::size_t>> read;
    for (std::size_t b = 0; b < in_order.size(); ++b) read.push_back(in_order.batch(b));
    const BatchPlan resumed = plan_batches(pairs, options, 3);
    for (std::size_t b = in_order.size(); b-- > 0;) {
      ASSERT_EQ(resumed.batch(b), read[b]) << "max_tokens " << max_tokens << ", batch " << b;
    }
  }
  const BatchPlan plan = plan_batches(pairs, BatchingOptions{16, 0, 5, true, 300}, 0);
  EXPECT_THROW(plan.batch(plan.size()), std::out_of_range);
}

TEST(PlanBatchesTest, UnshuffledBlocksAreRunsOfThePairsInOrder) {
  const auto pairs = pairs_of_lengths(250);
  const BatchPlan sentences = plan_batches(pairs, BatchingOptions{8, 0, 5, false, 100}, 0);
  ASSERT_EQ(sentences.size(), 13u + 13u + 7u);
  EXPECT_EQ(sentences.batch(12), (std::vector<std::size_t>{96, 97, 98, 99}));
  EXPECT_EQ(sentences.batch(13)[0], 100u);
  EXPECT_EQ(sentences.batch(32), (std::vector<std::size_t>{248, 249}));
  // Blocks of 0 pairs are taken as blocks of one.
  const BatchPlan singles = plan_batches(pairs, BatchingOptions{8, 0, 5, false, 0}, 0);
  ASSERT_EQ(singles.size(), 250u);
  EXPECT_EQ(singles.batch(249), std::vector<std::size_t>{249});
  const BatchPlan tokens = plan_batches(pairs, BatchingOptions{8, 40, 5, false, 100}, 0);
  const std::vector<std::size_t> read = pairs_in_training_order(tokens);
  ASSERT_EQ(read.size(), 250u);
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i] / 100, i < 100 ? 0u : i < 200 ? 1u : 2u) << "position " << i;
  }
}

std::vector<SentencePair> sentence_pairs() {
  const std::vector<SentencePair> base = {
      {"Where is the library?", "¿Dónde está la biblioteca?"},
      {"I like reading books.", "Me gusta leer libros."},
      {"She lives in a big house.", "Ella vive en una casa grande."},
      {"Tomorrow we will go to the beach.", "Mañana iremos a la playa."},
      {"The dog sleeps in the garden.", "El perro duerme en el jardín."}};
  std::vector<SentencePair> pairs;
  for (int repeat = 0; repeat < 40; ++repeat) pairs.insert(pairs.end(), base.begin(), base.end());
  return pairs;
}

text::TokenizerPair shared_unigram(const std::vector<SentencePair>& pairs) {
  return testing::shared_unigram(pairs, 400);
}

// Subword regularisation draws an epoch's segmentations from (seed, epoch, pair) alone: the same
// for any thread count, different for another epoch or seed, each pair's copies apart.
TEST(SamplePairsTest, AnEpochsSamplesDependOnlyOnSeedAndEpoch) {
  const std::vector<SentencePair> pairs = sentence_pairs();
  const text::TokenizerPair tokenizers = shared_unigram(pairs);
  const text::SubwordSampling sampling{-1, 0.2f};
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const EncodedCorpus one_thread = sample_pairs(pairs, tokenizers, sampling, 23, 4);
  at::set_num_threads(2);
  const EncodedCorpus two_threads = sample_pairs(pairs, tokenizers, sampling, 23, 4);
  at::set_num_threads(threads);
  const auto same = [](const EncodedCorpus& a, const EncodedCorpus& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!(a.pair(i) == b.pair(i))) return false;
    }
    return true;
  };
  ASSERT_EQ(one_thread.size(), pairs.size());
  EXPECT_TRUE(same(one_thread, two_threads));
  EXPECT_TRUE(same(one_thread, sample_pairs(pairs, tokenizers, sampling, 23, 4)));
  EXPECT_FALSE(same(one_thread, sample_pairs(pairs, tokenizers, sampling, 23, 5)));
  EXPECT_FALSE(same(one_thread, sample_pairs(pairs, tokenizers, sampling, 24, 4)));
  const EncodedCorpus deterministic = encode_pairs(pairs, tokenizers);
  EXPECT_FALSE(same(one_thread, deterministic));
  std::set<std::vector<int64_t>> copies;  // pair 0 repeats every 5 pairs
  for (std::size_t i = 0; i < pairs.size(); i += 5) {
    const EncodedPair sampled = one_thread.pair(i);
    EXPECT_EQ(tokenizers.source->decode(sampled.source), pairs[i].source);
    EXPECT_EQ(tokenizers.target->decode(sampled.target), pairs[i].target);
    copies.insert(sampled.source);
  }
  EXPECT_GT(copies.size(), 3u);
}

// The threads take blocks of 256 pairs as they free up; the ids land in pair order all the same.
TEST(EncodePairsTest, TheIdsAreTheSameForAnyThreadCount) {
  std::vector<SentencePair> pairs;
  for (int copy = 0; copy < 15; ++copy) {
    for (SentencePair pair : sentence_pairs()) {
      pair.source += " " + std::to_string(copy);
      pairs.push_back(std::move(pair));
    }
  }
  const text::TokenizerPair tokenizers = shared_unigram(sentence_pairs());
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const EncodedCorpus one_thread = encode_pairs(pairs, tokenizers);
  at::set_num_threads(3);
  const EncodedCorpus three_threads = encode_pairs(pairs, tokenizers);
  at::set_num_threads(threads);
  ASSERT_EQ(one_thread.size(), 3000u);
  ASSERT_EQ(three_threads.size(), 3000u);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_EQ(three_threads.pair(i), one_thread.pair(i)) << "pair " << i;
  }
  EXPECT_EQ(tokenizers.source->decode(three_threads.pair(2999).source), pairs[2999].source);
}

// A split sampled a chunk at a time, each chunk told the index of its first pair, is the split
// sampled whole: what lets training sample train.tsv without holding it.
TEST(SamplePairsTest, ChunksToldTheirFirstIndexSampleWhatTheWholeSplitSamples) {
  const std::vector<SentencePair> pairs = sentence_pairs();
  const text::TokenizerPair tokenizers = shared_unigram(pairs);
  const text::SubwordSampling sampling{-1, 0.2f};
  const EncodedCorpus whole = sample_pairs(pairs, tokenizers, sampling, 23, 4);
  const std::size_t half = pairs.size() / 2;
  const std::vector<SentencePair> first(pairs.begin(), pairs.begin() + static_cast<long>(half));
  const std::vector<SentencePair> second(pairs.begin() + static_cast<long>(half), pairs.end());
  const EncodedCorpus head = sample_pairs(first, tokenizers, sampling, 23, 4, 0);
  const EncodedCorpus tail = sample_pairs(second, tokenizers, sampling, 23, 4, half);
  const EncodedCorpus tail_from_zero = sample_pairs(second, tokenizers, sampling, 23, 4);
  ASSERT_EQ(head.size() + tail.size(), whole.size());
  bool is_same_from_zero = true;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(i < half ? head.pair(i) : tail.pair(i - half), whole.pair(i)) << "pair " << i;
    if (i >= half && !(tail_from_zero.pair(i - half) == whole.pair(i))) is_same_from_zero = false;
  }
  EXPECT_FALSE(is_same_from_zero) << "the first index must change the draws";
}

TEST(SamplePairsTest, WordVocabulariesCannotSample) {
  const std::vector<SentencePair> pairs = {{"hello", "hola"}};
  auto words = std::make_shared<text::WordTokenizer>(text::Vocab::build({"hello", "hola"}, 1));
  EXPECT_THROW(sample_pairs(pairs, {words, words}, text::SubwordSampling{-1, 0.2f}, 23, 0),
               ConfigError);
}

}  // namespace
}  // namespace nmt::data
