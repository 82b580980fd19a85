#include "nmt/run/sampled_epochs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "nmt/data/batch_plan.h"
#include "nmt/data/dataset.h"
#include "nmt/error.h"
#include "nmt/text/vocab.h"
#include "nmt/text/word_tokenizer.h"
#include "test_utils.h"
#include "tokenizer_test_utils.h"

namespace nmt::run {
namespace {

struct SampledRun {
  testing::ScratchDir dir;
  RunDir run{dir.path()};
  std::vector<data::SentencePair> pairs;
  text::TokenizerPair tokenizers;

  explicit SampledRun(int count) {
    for (int i = 0; i < count; ++i) {
      const std::string n = std::to_string(i % 97);
      pairs.push_back({"the black cat number " + n + " sat on the wooden table",
                       "el gato negro número " + n + " se sentó en la mesa de madera"});
    }
    data::write_pairs(run.split(Split::kTrain), pairs);
    tokenizers = testing::shared_unigram(pairs, 500);
  }

  std::unique_ptr<SampledEpochs> sampled(const std::string& file, bool ahead) const {
    SampledEpochsOptions options;
    options.sampling = {-1, 0.2f};
    options.seed = 23;
    options.ahead = ahead;
    return std::make_unique<SampledEpochs>(run, dir.file(file), tokenizers, options);
  }
};

void expect_same(const data::EncodedCorpus& a,
                 const data::EncodedCorpus& b,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a.pair(i), b.pair(i)) << what << ", pair " << i;
}

// Sampled ahead on a thread of its own, one pair after another, or when the epoch starts on the
// intra-op threads: the same ids, those of data::sample_pairs over the whole split.
TEST(SampledEpochsTest, AheadOrNotAnEpochSamplesTheSameIds) {
  const SampledRun run(600);
  const auto now = run.sampled("now.ids", /*ahead=*/false);
  const auto ahead = run.sampled("ahead.ids", /*ahead=*/true);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const data::EncodedCorpus expected =
        data::sample_pairs(run.pairs, run.tokenizers, {-1, 0.2f}, 23, epoch);
    expect_same(now->epoch(epoch), expected, "epoch " + std::to_string(epoch) + " sampled now");
    expect_same(ahead->epoch(epoch), expected, "epoch " + std::to_string(epoch) + " sampled ahead");
  }
  bool differs = false;
  const data::EncodedCorpus first =
      data::sample_pairs(run.pairs, run.tokenizers, {-1, 0.2f}, 23, 0);
  const data::EncodedCorpus second = ahead->epoch(1);  // not what was sampled ahead (epoch 3)
  for (std::size_t i = 0; i < first.size() && !differs; ++i)
    differs = !(first.pair(i) == second.pair(i));
  EXPECT_TRUE(differs) << "each epoch its own samples";
  expect_same(second, data::sample_pairs(run.pairs, run.tokenizers, {-1, 0.2f}, 23, 1),
              "an epoch asked out of turn (a resumed run)");
}

// The epoch a resumed run starts in is sampled at once; the one after it ahead.
TEST(SampledEpochsTest, AResumedRunSamplesItsEpochThenTheNextAhead) {
  const SampledRun run(300);
  const auto ahead = run.sampled("ahead.ids", /*ahead=*/true);
  expect_same(ahead->epoch(4), data::sample_pairs(run.pairs, run.tokenizers, {-1, 0.2f}, 23, 4),
              "epoch 4");
  expect_same(ahead->epoch(5), data::sample_pairs(run.pairs, run.tokenizers, {-1, 0.2f}, 23, 5),
              "epoch 5");
}

// A run that ends while the next epoch is being sampled stops it and leaves no file behind.
TEST(SampledEpochsTest, EndingMidSamplingLeavesNothingBehind) {
  const SampledRun run(20000);
  auto ahead = run.sampled("ahead.ids", /*ahead=*/true);
  const data::EncodedCorpus epoch = ahead->epoch(0);
  EXPECT_EQ(epoch.size(), 20000u);
  ahead.reset();
  for (const auto& entry : std::filesystem::directory_iterator(run.dir.path())) {
    EXPECT_EQ(entry.path().filename(), "train.tsv") << "left behind: " << entry.path();
  }
}

TEST(SampledEpochsTest, WordVocabulariesAreRefusedBeforeAnyThreadStarts) {
  const SampledRun run(10);
  SampledEpochsOptions options;
  options.sampling = {-1, 0.2f};
  options.ahead = true;
  auto words = std::make_shared<text::WordTokenizer>(text::Vocab::build({"the", "el"}, 1));
  EXPECT_THROW(SampledEpochs(run.run, run.dir.file("x.ids"), {words, words}, options), ConfigError);
}

}  // namespace
}  // namespace nmt::run
