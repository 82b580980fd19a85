#include "nmt/data/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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

CorpusFile named(const std::string& path) {
  CorpusFile file;
  file.path = path;
  return file;
}

TEST(MakeSplitsTest, NamedDevAndTestSetsReplaceTheFractionsAndAreNotFiltered) {
  CorpusOptions options;
  options.max_words = 3;
  options.valid = {named("dev.tsv")};
  options.test = {named("test.tsv")};
  CorpusSet corpora;
  corpora.train = {{{"Hi.", "Hola."}, {"Run!", "¡Corre!"}, {"Go.", "Ve."}, {"I see.", "Ya veo."}}};
  corpora.valid = {{"We will see it tomorrow.", "Lo veremos mañana."}, {"   ", "vacío"}};
  corpora.test = {{"Go.", "Vete."}};
  const Splits splits = make_splits(corpora, options, text::CleanMode::kNotebook);
  // The fractions are ignored: every kept training pair trains, except the one whose source the
  // test set holds; the dev sentence longer than max_words stays, the empty one goes.
  EXPECT_EQ(splits.train, (std::vector<SentencePair>{
                              {"hi", "hola"}, {"run !", "¡ corre !"}, {"i see", "ya veo"}}));
  EXPECT_EQ(splits.valid,
            (std::vector<SentencePair>{{"we will see it tomorrow", "lo veremos mañana"}}));
  EXPECT_EQ(splits.test, (std::vector<SentencePair>{{"go", "vete"}}));
  EXPECT_EQ(splits.report.held_out_source, 1u);
  EXPECT_EQ(splits.report.held_out_empty, 1u);
  EXPECT_EQ(splits.report.input, 4u);
}

TEST(MakeSplitsTest, ANamedTestSetKeepsTheRandomValidationSplit) {
  CorpusOptions options;
  options.valid_fraction = 0.1;
  options.test = {named("test.tsv")};
  CorpusSet corpora{{numbered_pairs(1000)}, {}, {{"Something else.", "Otra cosa."}}};
  const Splits splits = make_splits(corpora, options, text::CleanMode::kNotebook);
  EXPECT_EQ(splits.valid.size(), 100u);
  EXPECT_EQ(splits.train.size(), 900u);
  EXPECT_EQ(splits.test.size(), 1u);
}

TEST(MakeSplitsTest, DropsIdenticalSidesWhenAsked) {
  CorpusOptions options;
  options.valid_fraction = 0.0;
  options.test_fraction = 0.0;
  const std::vector<SentencePair> raw = {{"OK.", "OK."}, {"Tom.", "Tom."}, {"Yes.", "Sí."}};
  EXPECT_EQ(make_splits(raw, options, text::CleanMode::kNormalize).train.size(), 3u);
  options.drop_identical = true;
  const Splits splits = make_splits(raw, options, text::CleanMode::kNormalize);
  EXPECT_EQ(splits.train, (std::vector<SentencePair>{{"Yes.", "Sí."}}));
  EXPECT_EQ(splits.report.identical, 2u);
}

TEST(FilterByLengthTest, DropsTrainingPairsTooLongOrTooUnbalancedInTokens) {
  CorpusOptions options;
  options.max_length = 4;
  options.max_length_ratio = 2.0;
  Splits splits;
  splits.train = {{"a b", "c d e"}, {"a b c d e", "f"}, {"a", "b c d"}, {"a b", "c d e f"}};
  splits.train_corpus = {0, 1, 2, 3};
  splits.valid = {{"a b c d e f g", "h"}};
  const auto word_counts = [pairs = splits.train](std::size_t index) {
    return std::pair{text::count_words(pairs[index].source), text::count_words(pairs[index].target)};
  };
  EXPECT_EQ(filter_by_length(splits, options, word_counts), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(splits.train, (std::vector<SentencePair>{{"a b", "c d e"}, {"a b", "c d e f"}}));
  EXPECT_EQ(splits.train_corpus, (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(splits.report.too_many_tokens, 1u);
  EXPECT_EQ(splits.report.length_ratio, 1u);
  EXPECT_EQ(splits.valid.size(), 1u) << "dev pairs are never length-filtered";
}

TEST(ApplyWeightsTest, RepeatsAndSamplesEachCorpusByItsWeight) {
  CorpusOptions options;
  options.valid_fraction = 0.0;
  options.test_fraction = 0.0;
  options.train = {named("small.tsv"), named("big.tsv")};
  options.train[0].weight = 3.0;
  options.train[1].weight = 0.5;
  CorpusSet distinct{{numbered_pairs(10), numbered_pairs(2000)}, {}, {}};
  for (SentencePair& pair : distinct.train[1]) pair.source = "Big " + pair.source;
  Splits splits = make_splits(distinct, options, text::CleanMode::kNotebook);
  ASSERT_EQ(splits.train.size(), 2010u);
  const std::vector<SentencePair> unweighted = splits.train;
  const std::vector<std::size_t> origins = apply_weights(splits, options);
  ASSERT_EQ(origins.size(), splits.train.size());
  for (std::size_t i = 0; i < origins.size(); ++i) {
    ASSERT_EQ(splits.train[i], unweighted[origins[i]]) << "pair " << i;
  }
  std::size_t small = 0;
  std::size_t big = 0;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    (splits.train_corpus[i] == 0 ? small : big) += 1;
  }
  EXPECT_EQ(small, 30u);
  EXPECT_NEAR(static_cast<double>(big), 1000.0, 70.0);  // a seeded half, about 3 sigma
  EXPECT_EQ(splits.train[0], splits.train[1]) << "copies follow their pair";
  Splits again = make_splits(distinct, options, text::CleanMode::kNotebook);
  apply_weights(again, options);
  EXPECT_EQ(again.train, splits.train) << "the sample is deterministic";
}

TEST(MakeSplitsTest, TheSplitsAreTheSameForAnyNumberOfCleaningThreads) {
  CorpusOptions options;
  options.max_words = 4;
  options.dedupe = true;
  CorpusSet corpora{{numbered_pairs(70000, 2), numbered_pairs(300)}, {}, {}};
  for (SentencePair& pair : corpora.train[1]) pair.source = "Other " + pair.source;
  corpora.train[0][5] = {"Far too many words here.", "Demasiadas."};
  corpora.train[1][7] = corpora.train[1][8];
  const Splits one = make_splits(corpora, options, text::CleanMode::kNormalize, 1);
  const Splits three = make_splits(corpora, options, text::CleanMode::kNormalize, 3);
  EXPECT_EQ(one.train, three.train);
  EXPECT_EQ(one.valid, three.valid);
  EXPECT_EQ(one.test, three.test);
  EXPECT_EQ(one.train_corpus, three.train_corpus);
  EXPECT_EQ(one.report.too_long, 1u);
  EXPECT_EQ(one.report.duplicates, 1u);
  EXPECT_EQ(three.report.duplicates, 1u);
  EXPECT_EQ(one.train.size() + one.valid.size() + one.test.size(), 140300u - 2);
}

// The corpora of options read whole, as make_splits takes them.
CorpusSet read_whole(const CorpusOptions& options) {
  CorpusSet corpora;
  const auto read = [&options](const CorpusFile& file) {
    std::vector<SentencePair> pairs = read_corpus(file, options.format).pairs;
    if (options.reverse) reverse_pairs(pairs);
    return pairs;
  };
  for (const CorpusFile& file : options.training_corpora()) corpora.train.push_back(read(file));
  for (const CorpusFile& file : options.test) {
    const std::vector<SentencePair> pairs = read(file);
    corpora.test.insert(corpora.test.end(), pairs.begin(), pairs.end());
  }
  return corpora;
}

std::string as_tsv(const std::vector<SentencePair>& pairs) {
  std::string text;
  for (const SentencePair& pair : pairs) text += pair.source + "\t" + pair.target + "\n";
  return text;
}

TEST(StreamSplitsTest, TheSplitsAreMakeSplitsOnesWithTheTrainSplitOnDisk) {
  testing::ScratchDir dir;
  // Two chunks and more of one corpus, a second one in aligned files with a weight, and a named
  // test set whose source drops a training pair; a duplicate, a pair too long, all reversed.
  std::vector<SentencePair> big = numbered_pairs(40000, 2);
  big[3] = {"Far too many words for the limit here.", "Demasiadas."};
  big[10] = big[12];
  std::vector<SentencePair> small = numbered_pairs(700);
  for (SentencePair& pair : small) pair.source = "Other " + pair.source;
  std::string small_source;
  std::string small_target;
  for (const SentencePair& pair : small) {
    small_source += pair.target + "\n";  // data.reverse swaps them back
    small_target += pair.source + "\n";
  }
  reverse_pairs(big);
  CorpusOptions options;
  options.train = {named(dir.write("big.tsv", as_tsv(big))), CorpusFile{}};
  options.train[1].source = dir.write("small.es", small_source);
  options.train[1].target = dir.write("small.en", small_target);
  options.train[1].weight = 2.0;
  options.test = {named(dir.write("test.tsv", "Frase 5 v0\tSentence number 5.\n"))};
  options.reverse = true;
  options.max_words = 6;
  options.dedupe = true;
  options.valid_fraction = 0.05;
  std::vector<std::string> reads;
  std::vector<std::size_t> progress;
  const ReadObserver observer{[&reads](const char* role, const ReadReport& report) {
                                reads.push_back(std::string(role) + " " +
                                                std::to_string(report.pairs));
                              },
                              [&progress](std::size_t pairs) { progress.push_back(pairs); }};
  const StreamedSplits streamed = stream_splits(options, text::CleanMode::kNormalize,
                                                dir.file("train.tsv"), dir.file("kept.tmp"),
                                                observer, 2);
  const Splits whole = make_splits(read_whole(options), options, text::CleanMode::kNormalize, 1);
  ASSERT_GT(whole.train.size(), 70000u);
  EXPECT_EQ(read_pairs(dir.file("train.tsv")), whole.train);
  EXPECT_EQ(streamed.train_size, whole.train.size());
  EXPECT_EQ(std::vector<std::size_t>(streamed.train_corpus.begin(), streamed.train_corpus.end()),
            whole.train_corpus);
  EXPECT_EQ(streamed.valid, whole.valid);
  EXPECT_EQ(streamed.test, whole.test);
  EXPECT_EQ(streamed.test, (std::vector<SentencePair>{{"Sentence number 5.", "Frase 5 v0"}}));
  const FilterReport& report = streamed.report;
  EXPECT_EQ(report.input, 80700u);
  EXPECT_EQ(report.too_long, 1u);
  EXPECT_EQ(report.duplicates, 1u);
  EXPECT_EQ(report.held_out_source, 1u);
  EXPECT_EQ(report.kept, whole.report.kept);
  EXPECT_EQ(reads, (std::vector<std::string>{"test 1", "train 80000", "train 700"}));
  EXPECT_EQ(progress, (std::vector<std::size_t>{65536, 80000, 80700}));
  EXPECT_FALSE(std::filesystem::exists(dir.file("kept.tmp")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("kept.tmp.ranks")));
}

// One source of 500 translations, then 500 sources of one: whether the early group's rank is low
// enough to be held out decides, seed by seed, whether the ranks held in memory cover the
// held-out splits (it was dropped from them while the early pairs came) or all ranks are read
// back; either way the splits are make_splits' own.
TEST(StreamSplitsTest, HeldOutGroupsAreMakeSplitsOnesForEverySeed) {
  testing::ScratchDir dir;
  std::vector<SentencePair> pairs;
  for (int i = 0; i < 500; ++i) pairs.push_back({"One source.", "Traducción " + std::to_string(i)});
  for (const SentencePair& pair : numbered_pairs(500)) pairs.push_back(pair);
  CorpusOptions options;
  options.path = dir.write("corpus.tsv", as_tsv(pairs));
  options.valid_fraction = 0.05;
  options.test_fraction = 0.05;
  for (uint64_t seed = 0; seed < 24; ++seed) {
    options.seed = seed;
    const StreamedSplits streamed =
        stream_splits(options, text::CleanMode::kNormalize, dir.file("train.tsv"),
                      dir.file("kept.tmp"), ReadObserver{}, 1);
    const Splits whole = make_splits(read_whole(options), options, text::CleanMode::kNormalize, 1);
    ASSERT_GE(whole.test.size(), 50u) << "seed " << seed;
    ASSERT_GE(whole.valid.size(), 50u) << "seed " << seed;
    EXPECT_EQ(streamed.test, whole.test) << "seed " << seed;
    EXPECT_EQ(streamed.valid, whole.valid) << "seed " << seed;
    EXPECT_EQ(read_pairs(dir.file("train.tsv")), whole.train) << "seed " << seed;
    EXPECT_FALSE(std::filesystem::exists(dir.file("kept.tmp.ranks"))) << "seed " << seed;
  }
}

TEST(SampleIndicesTest, ASeededSampleOfExactlyTheSizeAsked) {
  const std::vector<std::size_t> sample = sample_indices(1000, 100, 23);
  ASSERT_EQ(sample.size(), 100u);
  EXPECT_TRUE(std::is_sorted(sample.begin(), sample.end()));
  EXPECT_EQ(std::set<std::size_t>(sample.begin(), sample.end()).size(), 100u);
  EXPECT_LT(sample.back(), 1000u);
  EXPECT_GT(sample.back(), 800u) << "drawn from the whole range, not its start";
  EXPECT_EQ(sample_indices(1000, 100, 23), sample);
  EXPECT_NE(sample_indices(1000, 100, 24), sample);
  EXPECT_EQ(sample_indices(3, 100, 23), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(sample_indices(3, 0, 23), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(sample_indices(1000, 999, 23).size(), 999u);
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

// Cleaning expands text and augmentation joins pairs: a split's line may outgrow a corpus line.
TEST(MakeSplitsTest, SplitFilesHoldLinesLongerThanACorpusLine) {
  testing::ScratchDir dir;
  const std::vector<SentencePair> pairs = {
      {std::string(kMaxLineBytes, 'a'), std::string(kMaxLineBytes, 'b')}, {"x", "y"}};
  write_pairs(dir.file("train.tsv"), pairs);
  EXPECT_EQ(read_pairs(dir.file("train.tsv")), pairs);
}

TEST(CorpusOptionsTest, ValidateNamesTheField) {
  CorpusOptions options;
  options.valid_fraction = 0.6;
  options.test_fraction = 0.5;
  EXPECT_THROW(options.validate(), ConfigError);
  options = CorpusOptions{};
  options.max_words = -1;
  try {
    options.validate();
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "max_words: expected a non-negative integer, got -1");
  }
}

}  // namespace
}  // namespace nmt::data
