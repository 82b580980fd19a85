#include "nmt/data/augment.h"

#include <gtest/gtest.h>

#include <set>

#include "nmt/error.h"

namespace nmt::data {
namespace {

Splits training_split(int n) {
  Splits splits;
  for (int i = 0; i < n; ++i) {
    splits.train.push_back({"Tom has " + std::to_string(i) + " cats.",
                            "Tom tiene " + std::to_string(i) + " gatos."});
    splits.train_corpus.push_back(static_cast<std::size_t>(i % 2));
  }
  return splits;
}

CorpusOptions augmenting(double upper, double lower, double concat) {
  CorpusOptions options;
  options.source_lang = "en";
  options.target_lang = "es";
  options.augment_upper = upper;
  options.augment_lower = lower;
  options.augment_concat = concat;
  return options;
}

TEST(AugmentTest, NothingByDefault) {
  Splits splits = training_split(50);
  const AugmentReport report = augment_training_split(splits, CorpusOptions{});
  EXPECT_EQ(report.total(), 0u);
  EXPECT_EQ(splits.train.size(), 50u);
}

TEST(AugmentTest, AddsCasedCopiesAfterTheOriginals) {
  Splits splits = training_split(2000);
  const Splits original = splits;
  const AugmentReport report = augment_training_split(splits, augmenting(0.1, 0.05, 0.0));
  // Seeded draws: near the fractions, never exactly zero on 2,000 pairs.
  EXPECT_NEAR(static_cast<double>(report.upper), 200.0, 45.0);
  EXPECT_NEAR(static_cast<double>(report.lower), 100.0, 35.0);
  EXPECT_EQ(report.joined, 0u);
  ASSERT_EQ(splits.train.size(), 2000u + report.total());
  ASSERT_EQ(splits.train_corpus.size(), splits.train.size());
  for (std::size_t i = 0; i < 2000; ++i) EXPECT_EQ(splits.train[i], original.train[i]);
  std::size_t upper = 0, lower = 0;
  for (std::size_t i = 2000; i < splits.train.size(); ++i) {
    const SentencePair& pair = splits.train[i];
    const std::string number = pair.source.substr(8, pair.source.find(' ', 8) - 8);
    if (pair.source.rfind("TOM HAS ", 0) == 0) {
      EXPECT_EQ(pair.target, "TOM TIENE " + number + " GATOS.");
      ++upper;
    } else {
      EXPECT_EQ(pair.source, "tom has " + number + " cats.");
      EXPECT_EQ(pair.target, "tom tiene " + number + " gatos.");
      ++lower;
    }
    EXPECT_EQ(splits.train_corpus[i], static_cast<std::size_t>(std::stoi(number) % 2));
  }
  EXPECT_EQ(upper, report.upper);
  EXPECT_EQ(lower, report.lower);
}

TEST(AugmentTest, JoinsTwoDifferentPairsOnBothSides) {
  Splits splits = training_split(500);
  const AugmentReport report = augment_training_split(splits, augmenting(0.0, 0.0, 0.2));
  EXPECT_NEAR(static_cast<double>(report.joined), 100.0, 30.0);
  std::set<std::string> partners;
  for (std::size_t i = 500; i < splits.train.size(); ++i) {
    const SentencePair& pair = splits.train[i];
    const std::size_t cut = pair.source.find(". ") + 1;
    ASSERT_NE(cut, 0u) << pair.source;
    const std::string first = pair.source.substr(0, cut);
    const std::string second = pair.source.substr(cut + 1);
    EXPECT_NE(first, second);
    const auto target_of = [](const std::string& source) {
      return "Tom tiene " + source.substr(8, source.find(' ', 8) - 8) + " gatos.";
    };
    EXPECT_EQ(pair.target, target_of(first) + " " + target_of(second));
    partners.insert(second);
  }
  EXPECT_GT(partners.size(), report.joined / 2);  // partners are spread, not one pair
}

TEST(AugmentTest, SameSeedSamePairsOtherSeedOthers) {
  Splits first = training_split(300), second = training_split(300), third = training_split(300);
  CorpusOptions options = augmenting(0.1, 0.1, 0.1);
  augment_training_split(first, options);
  augment_training_split(second, options);
  options.seed = 24;
  augment_training_split(third, options);
  EXPECT_EQ(first.train, second.train);
  EXPECT_NE(first.train, third.train);
}

TEST(AugmentTest, FractionsAreValidated) {
  CorpusOptions options;
  options.augment_concat = 1.0;
  try {
    options.validate();
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "augment_concat: expected a number in [0, 1), got 1");
  }
}

}  // namespace
}  // namespace nmt::data
