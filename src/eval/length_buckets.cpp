#include "nmt/eval/length_buckets.h"

#include <fmt/format.h>

#include "nmt/error.h"

namespace nmt::eval {
namespace {

struct Range {
  std::size_t min_words;
  std::optional<std::size_t> max_words;
};

// 15 words is the notebook's length filter (configs/seed.json), so the first three buckets are
// what a filtered corpus holds and the last two what it lost.
constexpr Range kRanges[] = {{0, 5}, {6, 10}, {11, 15}, {16, 30}, {31, std::nullopt}};

bool contains(const Range& range, std::size_t words) {
  return words >= range.min_words && (!range.max_words || words <= *range.max_words);
}

}  // namespace

std::string LengthBucket::label() const {
  return max_words ? fmt::format("{}-{}", min_words, *max_words) : fmt::format("{}+", min_words);
}

std::vector<LengthBucket> score_by_source_length(
    const std::vector<std::size_t>& source_words,
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references) {
  if (source_words.size() != hypotheses.size()) {
    throw Error("score_by_source_length: " + std::to_string(source_words.size()) +
                " source lengths for " + std::to_string(hypotheses.size()) + " hypotheses");
  }
  std::vector<LengthBucket> buckets;
  for (const Range& range : kRanges) {
    LengthBucket bucket{range.min_words, range.max_words, 0, std::nullopt};
    std::vector<std::string> kept_hypotheses;
    std::vector<std::vector<std::string>> kept_references(references.size());
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
      if (!contains(range, source_words[i])) continue;
      kept_hypotheses.push_back(hypotheses[i]);
      for (std::size_t k = 0; k < references.size(); ++k) {
        kept_references[k].push_back(references[k].at(i));
      }
    }
    bucket.sentences = kept_hypotheses.size();
    if (!kept_hypotheses.empty()) bucket.scores = score_corpus(kept_hypotheses, kept_references);
    buckets.push_back(std::move(bucket));
  }
  return buckets;
}

nlohmann::json length_buckets_json(const std::vector<LengthBucket>& buckets) {
  nlohmann::json out = nlohmann::json::array();
  for (const LengthBucket& bucket : buckets) {
    out.push_back({{"words", bucket.label()},
                   {"min_words", bucket.min_words},
                   {"max_words", bucket.max_words ? nlohmann::json(*bucket.max_words) : nullptr},
                   {"sentences", bucket.sentences},
                   {"bleu", bucket.scores ? nlohmann::json(bucket.scores->bleu.score) : nullptr},
                   {"chrf", bucket.scores ? nlohmann::json(bucket.scores->chrf.score) : nullptr}});
  }
  return out;
}

std::string length_buckets_text(const std::vector<LengthBucket>& buckets) {
  std::string out = "by source length (words):\n";
  for (const LengthBucket& bucket : buckets) {
    if (!bucket.scores) {
      out += fmt::format("  {:>6} words: {:>6} sentences  (empty: no score)\n", bucket.label(), 0);
      continue;
    }
    out +=
        fmt::format("  {:>6} words: {:>6} {:<9}  BLEU = {:6.2f}  chrF2 = {:6.2f}\n", bucket.label(),
                    bucket.sentences, bucket.sentences == 1 ? "sentence" : "sentences",
                    bucket.scores->bleu.score, bucket.scores->chrf.score);
  }
  return out;
}

}  // namespace nmt::eval
