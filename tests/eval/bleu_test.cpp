#include "nmt/eval/bleu.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eval/sacrebleu_golden.h"
#include "nmt/error.h"

namespace nmt::eval {
namespace {

constexpr double kBleuTolerance = 0.01;

void expect_bleu_matches(const BleuScore& actual, const nlohmann::json& expected) {
  EXPECT_NEAR(actual.score, expected["score"].get<double>(), kBleuTolerance);
  EXPECT_NEAR(actual.bp, expected["bp"].get<double>(), kBleuTolerance);
  EXPECT_EQ(actual.sys_len, expected["sys_len"].get<int64_t>());
  EXPECT_EQ(actual.ref_len, expected["ref_len"].get<int64_t>());
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(actual.counts[n], expected["counts"][n].get<int64_t>()) << "order " << n + 1;
    EXPECT_EQ(actual.totals[n], expected["totals"][n].get<int64_t>()) << "order " << n + 1;
    EXPECT_NEAR(actual.precisions[n], 100.0 * actual.counts[n] / actual.totals[n], 1e-9);
  }
}

TEST(BleuGoldenTest, CorpusBleuOneReferenceMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected();
  const BleuScore bleu =
      corpus_bleu(testing::read_golden_lines("hyp.txt"), {testing::read_golden_lines("ref.txt")});
  expect_bleu_matches(bleu, expected["corpus_bleu_1ref"]);
  EXPECT_EQ(bleu.signature, expected["signature_bleu"].get<std::string>());
}

TEST(BleuGoldenTest, CorpusBleuTwoReferencesMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected();
  const BleuScore bleu =
      corpus_bleu(testing::read_golden_lines("hyp.txt"),
                  {testing::read_golden_lines("ref.txt"), testing::read_golden_lines("ref2.txt")});
  expect_bleu_matches(bleu, expected["corpus_bleu_2ref"]);
  EXPECT_EQ(bleu.signature, "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
}

TEST(BleuGoldenTest, SentenceBleuOfFirstFiftyLinesMatchesSacrebleu) {
  const auto expected = testing::read_golden_expected()["sentence_bleu_first50_1ref"];
  const auto hypotheses = testing::read_golden_lines("hyp.txt");
  const auto references = testing::read_golden_lines("ref.txt");
  ASSERT_EQ(expected.size(), 50u);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const BleuScore bleu = sentence_bleu(hypotheses[i], {references[i]});
    EXPECT_NEAR(bleu.score, expected[i].get<double>(), kBleuTolerance)
        << "line " << i + 1 << ": " << hypotheses[i];
    EXPECT_EQ(bleu.signature, "nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0");
  }
}

TEST(BleuTest, PerfectMatchScoresHundred) {
  const BleuScore bleu = corpus_bleu({"The cat sat on the mat.", "¿Dónde está el baño?"},
                                     {{"The cat sat on the mat.", "¿Dónde está el baño?"}});
  EXPECT_DOUBLE_EQ(bleu.score, 100.0);
  EXPECT_DOUBLE_EQ(bleu.bp, 1.0);
  EXPECT_EQ(bleu.sys_len, 12);
  EXPECT_EQ(bleu.ref_len, 12);
}

TEST(BleuTest, EmptyHypothesisScoresZero) {
  const BleuScore bleu = corpus_bleu({""}, {{"a b c"}});
  EXPECT_EQ(bleu.score, 0.0);
  EXPECT_EQ(bleu.bp, 0.0);
  EXPECT_EQ(bleu.sys_len, 0);
  EXPECT_EQ(bleu.ref_len, 3);
  EXPECT_EQ(bleu.totals[0], 0);
  EXPECT_EQ(sentence_bleu("", {"a b c"}).score, 0.0);
}

TEST(BleuTest, EmptyCorpusScoresZero) {
  const BleuScore bleu = corpus_bleu({}, {{}});
  EXPECT_EQ(bleu.score, 0.0);
  EXPECT_EQ(bleu.sys_len, 0);
  EXPECT_EQ(bleu.signature, "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
}

// Chen & Cherry's method 3: the k-th order without a match counts 1 / (2^k * total).
TEST(BleuTest, ExpSmoothingHalvesEachMissingOrder) {
  // Precisions 3/4, 2/3, 1/2 and 1/(2*1): (75 * 66.67 * 50 * 50)^(1/4).
  EXPECT_NEAR(corpus_bleu({"a b c d"}, {{"a b c e"}}).score, 59.46035575013605, 1e-9);
  // Precisions 2/4, 1/3, 1/(2*2), 1/(4*1).
  const BleuScore bleu = corpus_bleu({"a b c d"}, {{"a b x y"}});
  EXPECT_NEAR(bleu.score, 31.947155212313625, 1e-9);
  EXPECT_NEAR(bleu.precisions[2], 25.0, 1e-12);
  EXPECT_NEAR(bleu.precisions[3], 25.0, 1e-12);
}

TEST(BleuTest, EffectiveOrderOnlyInSentenceBleu) {
  // No 3-gram: the corpus score is 0, the sentence score leaves orders 3 and 4 out.
  EXPECT_EQ(corpus_bleu({"a b"}, {{"a b"}}).score, 0.0);
  EXPECT_DOUBLE_EQ(sentence_bleu("a b", {"a b"}).score, 100.0);
  // Brevity penalty exp(1 - 4/3) on a perfect 3-word prefix.
  const BleuScore bleu = sentence_bleu("a b c", {"a b c d"});
  EXPECT_NEAR(bleu.bp, 0.7165313105737893, 1e-12);
  EXPECT_NEAR(bleu.score, 71.65313105737893, 1e-9);
}

TEST(BleuTest, ClipsCountsByTheReferenceWithMostOccurrences) {
  EXPECT_EQ(corpus_bleu({"the the the the"}, {{"the cat"}}).counts[0], 1);
  EXPECT_EQ(corpus_bleu({"the the the the"}, {{"the cat"}, {"the the cat"}}).counts[0], 2);
}

TEST(BleuTest, BrevityPenaltyUsesClosestReferenceLengthShorterOnTie) {
  // Lengths 4 and 2 are both 1 away from 3: the shorter one counts.
  EXPECT_EQ(corpus_bleu({"a b c"}, {{"a b c d"}, {"a b"}}).ref_len, 2);
  EXPECT_EQ(corpus_bleu({"a b c"}, {{"a b c d e"}, {"a b c d"}}).ref_len, 4);
}

TEST(BleuTest, EmptyReferencesAreDroppedFromTheirLine) {
  const BleuScore bleu = corpus_bleu({"a b c", "d e f"}, {{"a b c", "d e f"}, {"x y z", ""}});
  EXPECT_EQ(bleu.signature, "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
  EXPECT_DOUBLE_EQ(sentence_bleu("a b c", {"", "a b c"}).score, 100.0);
}

TEST(BleuTest, MismatchedLineCountsNameBothCounts) {
  try {
    corpus_bleu({"a", "b", "c"}, {{"a", "b", "c"}, {"a", "b"}});
    FAIL() << "expected nmt::Error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "hypotheses have 3 lines, reference set 2 has 2");
  }
}

TEST(BleuTest, RejectsMissingReferences) {
  EXPECT_THROW(corpus_bleu({"a"}, {}), Error);
  EXPECT_THROW(sentence_bleu("a", {}), Error);
  EXPECT_THROW(corpus_bleu({"a"}, {{""}}), Error);
}

}  // namespace
}  // namespace nmt::eval
