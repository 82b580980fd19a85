#include "nmt/eval/length_buckets.h"

#include <gtest/gtest.h>

#include "nmt/error.h"
#include "sacrebleu_golden.h"

namespace nmt::eval {
namespace {

TEST(LengthBucketsTest, EveryLengthLandsInOneBucketAndEmptyBucketsHaveNoScore) {
  std::vector<std::size_t> words;
  std::vector<std::string> hypotheses;
  for (std::size_t n : {0, 1, 5, 6, 10, 11, 15, 16, 30}) {
    words.push_back(n);
    hypotheses.push_back("the cat sat on the mat");
  }
  const std::vector<LengthBucket> buckets = score_by_source_length(words, hypotheses, {hypotheses});
  ASSERT_EQ(buckets.size(), 5u);
  const std::vector<std::string> labels = {"0-5", "6-10", "11-15", "16-30", "31+"};
  const std::vector<std::size_t> sentences = {3, 2, 2, 2, 0};
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    EXPECT_EQ(buckets[i].label(), labels[i]);
    EXPECT_EQ(buckets[i].sentences, sentences[i]) << labels[i];
  }
  EXPECT_DOUBLE_EQ(buckets[0].scores->bleu.score, 100.0);
  EXPECT_FALSE(buckets[4].scores.has_value()) << "an empty bucket is not a BLEU of 0";
  const nlohmann::json json = length_buckets_json(buckets);
  EXPECT_EQ(json[4], (nlohmann::json{{"words", "31+"},
                                     {"min_words", 31},
                                     {"max_words", nullptr},
                                     {"sentences", 0},
                                     {"bleu", nullptr},
                                     {"chrf", nullptr}}));
  EXPECT_EQ(json[1]["max_words"], 10);
  EXPECT_NEAR(json[1]["bleu"].get<double>(), 100.0, 1e-9);
  const std::string text = length_buckets_text(buckets);
  EXPECT_NE(text.find("    31+ words:      0 sentences  (empty: no score)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    0-5 words:      3 sentences  BLEU = 100.00  chrF2 = 100.00\n"),
            std::string::npos)
      << text;
}

// Each bucket is scored as a corpus of its own: all 500 golden lines in one bucket score what
// sacreBLEU gives the file, and a split scores what score_corpus gives each part.
TEST(LengthBucketsTest, EachBucketIsItsOwnSacrebleuCorpus) {
  const auto expected = testing::read_golden_expected();
  const std::vector<std::string> hypotheses = testing::read_golden_lines("hyp.txt");
  const std::vector<std::string> references = testing::read_golden_lines("ref.txt");
  const std::vector<LengthBucket> one = score_by_source_length(
      std::vector<std::size_t>(hypotheses.size(), 12), hypotheses, {references});
  EXPECT_EQ(one[2].sentences, 500u);
  EXPECT_NEAR(one[2].scores->bleu.score, expected["corpus_bleu_1ref"]["score"].get<double>(), 1e-9);
  EXPECT_NEAR(one[2].scores->chrf.score, expected["corpus_chrf_1ref"].get<double>(), 1e-9);

  std::vector<std::size_t> words(hypotheses.size(), 3);
  std::fill(words.begin() + 250, words.end(), 40);
  const std::vector<LengthBucket> split = score_by_source_length(words, hypotheses, {references});
  const Scores first = score_corpus({hypotheses.begin(), hypotheses.begin() + 250},
                                    {{references.begin(), references.begin() + 250}});
  const Scores second = score_corpus({hypotheses.begin() + 250, hypotheses.end()},
                                     {{references.begin() + 250, references.end()}});
  EXPECT_EQ(split[0].scores->bleu.score, first.bleu.score);
  EXPECT_EQ(split[0].scores->chrf.score, first.chrf.score);
  EXPECT_EQ(split[4].scores->bleu.score, second.bleu.score);
  EXPECT_EQ(split[4].sentences, 250u);
  EXPECT_NE(first.bleu.score, second.bleu.score);
}

TEST(LengthBucketsTest, MismatchedLengthsAreAnError) {
  EXPECT_THROW(score_by_source_length({1, 2}, {"a"}, {{"a"}}), Error);
}

}  // namespace
}  // namespace nmt::eval
