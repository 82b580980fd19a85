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

TEST(AugmentTest, PlaceholdersReplaceWhatBothSidesShareWithOneNumberingFromADrawnStart) {
  Splits splits;
  splits.train = {{"Tom has 3 cats and Ana has 3.", "Tom tiene 3 gatos y Ana tiene 3."},
                  {"Ana met Tom in 1999.", "Ana conoció a Tom en 1999."},
                  {"Call 555-0199, not Mary.", "Llama al 555-0199, no a María."},
                  {"I have cats.", "Tengo gatos."},
                  {"It is 10:30.", "Son las diez y media."},
                  {"Ana Kovács is here.", "Kovács, Ana, está aquí."}};
  splits.train_corpus = {0, 1, 0, 1, 0, 1};
  CorpusOptions options;
  options.augment_placeholders = 0.999;  // every pair that has a shared span
  const AugmentReport report = augment_training_split(splits, options);
  // None for a pair with no span, with none the target shares, or with a span joined on one side
  // ("Ana Kovács") and apart on the other.
  ASSERT_EQ(report.placeholders, 3u);
  ASSERT_EQ(splits.train.size(), 9u);
  EXPECT_EQ(splits.train_corpus[7], 1u);
  for (std::size_t i = 6; i < 9; ++i) {
    const SentencePair& pair = splits.train[i];
    // One numbering for both sides, consecutive from where it starts: ⦅k⦆ for the first
    // span, ⦅k+1⦆ for the second.
    const std::size_t at = pair.source.find("⦅");
    ASSERT_NE(at, std::string::npos) << pair.source;
    const int k = std::stoi(pair.source.substr(at + std::string("⦅").size()));
    const auto ph = [](int n) { return "⦅" + std::to_string(n) + "⦆"; };
    if (i == 6) {
      EXPECT_EQ(pair.source, ph(k) + " has " + ph(k + 1) + " cats and " + ph(k + 2) + " has " +
                                 ph(k + 1) + ".");
      EXPECT_EQ(pair.target, ph(k) + " tiene " + ph(k + 1) + " gatos y " + ph(k + 2) +
                                 " tiene " + ph(k + 1) + ".");
    } else if (i == 7) {
      EXPECT_EQ(pair.source, ph(k) + " met " + ph(k + 1) + " in " + ph(k + 2) + ".");
      EXPECT_EQ(pair.target, ph(k) + " conoció a " + ph(k + 1) + " en " + ph(k + 2) + ".");
    } else {
      EXPECT_EQ(pair.source, "Call " + ph(k) + ", not Mary.") << "Mary is María there";
      EXPECT_EQ(pair.target, "Llama al " + ph(k) + ", no a María.");
    }
  }
  // Two spans ("Tom", the number) start anywhere from ⦅1⦆ to ⦅8⦆, so every placeholder is learnt.
  Splits many = training_split(400);
  augment_training_split(many, options);
  std::set<std::string> starts;
  for (std::size_t i = 400; i < many.train.size(); ++i) starts.insert(many.train[i].source.substr(0, 7));
  EXPECT_EQ(starts.size(), 8u);
  EXPECT_EQ(*starts.rbegin(), "⦅8⦆");
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
  options.augment_concat = 0;
  options.augment_placeholders = -0.5;
  EXPECT_THROW(options.validate(), ConfigError);
}

}  // namespace
}  // namespace nmt::data
