#include "nmt/data/dataset.h"

#include <gtest/gtest.h>

#include <set>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt::data {
namespace {

std::vector<SentencePair> numbered_pairs(int n, int translations_per_source = 1) {
  std::vector<SentencePair> pairs;
  for (int i = 0; i < n; ++i) {
    for (int t = 0; t < translations_per_source; ++t) {
      pairs.push_back({"Sentence number " + std::to_string(i) + ".",
                       "Frase " + std::to_string(i) + " v" + std::to_string(t)});
    }
  }
  return pairs;
}

TEST(MakeSplitsTest, CleansAndFiltersByLength) {
  CorpusOptions options;
  options.max_words = 3;
  options.valid_fraction = 0.0;
  options.test_fraction = 0.0;
  const std::vector<SentencePair> raw = {
      {"I'm sad.", "Estoy triste."}, {"One two three four.", "Uno."}, {"!!!", "¿?"}, {"@@", "x"}};
  const Splits splits = make_splits(raw, options, text::CleanMode::kNotebook);
  ASSERT_EQ(splits.train.size(), 2u);
  EXPECT_EQ(splits.train[0], (SentencePair{"i m sad", "estoy triste"}));
  EXPECT_EQ(splits.train[1], (SentencePair{"! ! !", "¿ ?"}));
  EXPECT_EQ(splits.report.too_long, 1u);
  EXPECT_EQ(splits.report.empty, 1u);
  EXPECT_EQ(splits.report.kept, 2u);
}

TEST(MakeSplitsTest, NormalizeModeKeepsCaseButCountsNotebookWords) {
  CorpusOptions options;
  options.max_words = 3;
  options.valid_fraction = 0.0;
  options.test_fraction = 0.0;
  // "¿Qué tal?" is 4 notebook words ("¿ qué tal ?"): dropped in both modes.
  const std::vector<SentencePair> raw = {{"Hi  there.", "¡Hola!"}, {"How are you?", "¿Qué tal?"}};
  const Splits splits = make_splits(raw, options, text::CleanMode::kNormalize);
  ASSERT_EQ(splits.train.size(), 1u);
  EXPECT_EQ(splits.train[0], (SentencePair{"Hi there.", "¡Hola!"}));
}

TEST(MakeSplitsTest, IsDeterministicAndHasRequestedSizes) {
  CorpusOptions options;
  options.valid_fraction = 0.1;
  options.test_fraction = 0.05;
  const auto raw = numbered_pairs(1000);
  const Splits a = make_splits(raw, options, text::CleanMode::kNotebook);
  const Splits b = make_splits(raw, options, text::CleanMode::kNotebook);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.test.size(), 50u);
  EXPECT_EQ(a.valid.size(), 100u);
  EXPECT_EQ(a.train.size(), 850u);
  options.seed = 24;
  const Splits c = make_splits(raw, options, text::CleanMode::kNotebook);
  EXPECT_NE(a.test, c.test);
}

TEST(MakeSplitsTest, GroupingKeepsEachSourceInOneSplit) {
  CorpusOptions options;
  options.valid_fraction = 0.2;
  options.test_fraction = 0.2;
  const auto raw = numbered_pairs(200, 3);
  const Splits splits = make_splits(raw, options, text::CleanMode::kNotebook);
  std::set<std::string> train_sources;
  for (const auto& pair : splits.train) train_sources.insert(pair.source);
  for (const auto* held_out : {&splits.valid, &splits.test}) {
    for (const auto& pair : *held_out)
      EXPECT_EQ(train_sources.count(pair.source), 0u) << pair.source;
  }
  EXPECT_EQ(splits.train.size() + splits.valid.size() + splits.test.size(), 600u);
}

TEST(MakeSplitsTest, UngroupedSplitSeparatesTranslationsOfOneSource) {
  CorpusOptions options;
  options.group_by_source = false;
  options.valid_fraction = 0.3;
  options.test_fraction = 0.3;
  const auto raw = numbered_pairs(100, 3);
  const Splits splits = make_splits(raw, options, text::CleanMode::kNotebook);
  std::set<std::string> train_sources;
  for (const auto& pair : splits.train) train_sources.insert(pair.source);
  std::size_t shared = 0;
  for (const auto& pair : splits.test) shared += train_sources.count(pair.source);
  EXPECT_GT(shared, 0u);
}

TEST(MakeSplitsTest, DedupeDropsExactDuplicatesAfterCleaning) {
  CorpusOptions options;
  options.dedupe = true;
  options.valid_fraction = 0.0;
  options.test_fraction = 0.0;
  const std::vector<SentencePair> raw = {{"Hi!", "Hola."}, {"hi !", "hola"}, {"Hi!", "Buenas."}};
  const Splits splits = make_splits(raw, options, text::CleanMode::kNotebook);
  EXPECT_EQ(splits.train.size(), 2u);
  EXPECT_EQ(splits.report.duplicates, 1u);
}

TEST(MakeSplitsTest, SplitFilesRoundTrip) {
  testing::ScratchDir dir;
  const std::vector<SentencePair> pairs = {{"i m sad", "estoy triste"}, {"¿ qué ?", "what ?"}};
  write_pairs(dir.file("train.tsv"), pairs);
  EXPECT_EQ(read_pairs(dir.file("train.tsv")), pairs);
  dir.write("bad.tsv", "ok\tfine\nno tab here\n");
  try {
    read_pairs(dir.file("bad.tsv"));
    FAIL();
  } catch (const DataError& error) {
    EXPECT_EQ(error.line(), 2u);
  }
}

TEST(CorpusOptionsTest, ValidateNamesTheField) {
  CorpusOptions options;
  options.valid_fraction = 0.6;
  options.test_fraction = 0.5;
  EXPECT_THROW(options.validate(), ConfigError);
  options = CorpusOptions{};
  options.max_words = 0;
  try {
    options.validate();
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "max_words: expected a positive integer, got 0");
  }
}

}  // namespace
}  // namespace nmt::data
