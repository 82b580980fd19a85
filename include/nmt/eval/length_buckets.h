// Corpus BLEU and chrF by source length: the sentences whose source has at most 5, 6-10, 11-15,
// 16-30 and more than 30 words, each scored on its own as sacreBLEU scores a corpus, so that a
// model's quality on long sentences is not hidden by the short ones that dominate the total. An
// empty bucket has no score (not 0). Torch-free; throws nmt::Error on mismatched line counts;
// never logs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nmt/eval/scores.h"

namespace nmt::eval {

struct LengthBucket {
  std::size_t min_words = 0;
  std::optional<std::size_t> max_words;  // none: no upper bound
  std::size_t sentences = 0;
  std::optional<Scores> scores;  // none when no sentence falls in the bucket

  // "0-5", "6-10", "11-15", "16-30", "31+".
  std::string label() const;
};

// The buckets, in order of length: 0-5, 6-10, 11-15, 16-30 and 31+ words.
// source_words[i]: the number of words of sentence i's source; references as for score_corpus.
std::vector<LengthBucket> score_by_source_length(
    const std::vector<std::size_t>& source_words,
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references);

// [{"words": "0-5", "min_words": 0, "max_words": 5, "sentences": 120, "bleu": 52.1, "chrf": 70.3},
//  ..., {"words": "31+", "min_words": 31, "max_words": null, "sentences": 0, "bleu": null,
//  "chrf": null}]
nlohmann::json length_buckets_json(const std::vector<LengthBucket>& buckets);

// A table for the terminal: one line per bucket, "(empty: no score)" for an empty one.
std::string length_buckets_text(const std::vector<LengthBucket>& buckets);

}  // namespace nmt::eval
