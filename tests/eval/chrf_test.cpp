#include "nmt/eval/chrf.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eval/sacrebleu_golden.h"
#include "nmt/error.h"

namespace nmt::eval {
namespace {

constexpr double kChrfTolerance = 0.01;

TEST(ChrfGoldenTest, CorpusChrfOneReferenceMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected();
  const ChrfScore chrf =
      corpus_chrf(testing::read_golden_lines("hyp.txt"), {testing::read_golden_lines("ref.txt")});
  EXPECT_NEAR(chrf.score, expected["corpus_chrf_1ref"].get<double>(), kChrfTolerance);
  EXPECT_EQ(chrf.signature, expected["signature_chrf"].get<std::string>());
}

TEST(ChrfGoldenTest, CorpusChrfTwoReferencesMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected();
  const ChrfScore chrf =
      corpus_chrf(testing::read_golden_lines("hyp.txt"),
                  {testing::read_golden_lines("ref.txt"), testing::read_golden_lines("ref2.txt")});
  EXPECT_NEAR(chrf.score, expected["corpus_chrf_2ref"].get<double>(), kChrfTolerance);
  EXPECT_EQ(chrf.signature, "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0");
}

TEST(ChrfGoldenTest, SentenceChrfOfFirstFiftyLinesMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected()["sentence_chrf_first50_1ref"];
  const auto hypotheses = testing::read_golden_lines("hyp.txt");
  const auto references = testing::read_golden_lines("ref.txt");
  ASSERT_EQ(expected.size(), 50u);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const ChrfScore chrf = sentence_chrf(hypotheses[i], {references[i]});
    EXPECT_NEAR(chrf.score, expected[i].get<double>(), kChrfTolerance)
        << "line " << i + 1 << ": " << hypotheses[i];
  }
}

TEST(ChrfTest, PerfectMatchScoresHundred) {
  EXPECT_DOUBLE_EQ(
      corpus_chrf({"¿Dónde está el baño?", "Hola."}, {{"¿Dónde está el baño?", "Hola."}}).score,
      100.0);
}

TEST(ChrfTest, EmptyHypothesisAndEmptyCorpusScoreZero) {
  EXPECT_EQ(sentence_chrf("", {"abc"}).score, 0.0);
  EXPECT_EQ(corpus_chrf({}, {{}}).score, 0.0);
}

TEST(ChrfTest, IgnoresWhitespace) {
  EXPECT_DOUBLE_EQ(sentence_chrf("a b\tc\u00a0d", {"abcd"}).score, 100.0);
}

TEST(ChrfTest, CountsCodePointsNotBytes) {
  // Orders 1 and 2 only: precision = recall = (1/2 + 0/1) / 2, so F2 = 0.25.
  EXPECT_NEAR(sentence_chrf("éa", {"éb"}).score, 25.0, 1e-9);
}

TEST(ChrfTest, AveragesOnlyOrdersPresentOnBothSides) {
  // Order 1: P 2/3, R 1; order 2: P 1/2, R 1; the reference has no 3-gram, so order 3 is left out.
  EXPECT_NEAR(sentence_chrf("abc", {"ab"}).score, 87.5, 1e-9);
  // Order 1: P 1, R 2/3; order 2: P 1, R 1/2: F2 of P 1 and R 7/12.
  EXPECT_NEAR(sentence_chrf("ab", {"abc"}).score, 100.0 * 5.0 * (7.0 / 12.0) / (4.0 + 7.0 / 12.0),
              1e-9);
}

TEST(ChrfTest, KeepsTheBestReferencePerLine) {
  const double good = sentence_chrf("the cat sat", {"the cat sat down"}).score;
  EXPECT_DOUBLE_EQ(sentence_chrf("the cat sat", {"a dog ran", "the cat sat down"}).score, good);
  EXPECT_DOUBLE_EQ(sentence_chrf("the cat sat", {"the cat sat down", "a dog ran"}).score, good);
  // Corpus level sums the statistics of each line's best reference.
  const double corpus =
      corpus_chrf({"the cat sat", "a dog ran"}, {{"a dog ran", "x"}, {"the cat sat", "a dog ran"}})
          .score;
  EXPECT_DOUBLE_EQ(corpus, 100.0);
}

TEST(ChrfTest, MismatchedLineCountsNameBothCounts) {
  try {
    corpus_chrf(std::vector<std::string>(500, "a"),
                {std::vector<std::string>(500, "a"), std::vector<std::string>(499, "a")});
    FAIL() << "expected nmt::Error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "hypotheses have 500 lines, reference set 2 has 499");
  }
  EXPECT_THROW(corpus_chrf({"a"}, {}), Error);
  EXPECT_THROW(sentence_chrf("a", {}), Error);
}

}  // namespace
}  // namespace nmt::eval
