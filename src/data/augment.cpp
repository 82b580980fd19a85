#include "nmt/data/augment.h"

#include "data/random.h"
#include "nmt/text/casing.h"

namespace nmt::data {
namespace {

// Distinct streams of draws per kind of augmentation, so that raising one fraction does not move
// the pairs another picks.
enum class Kind : uint64_t { kUpper = 1, kLower = 2, kConcat = 3, kPartner = 4 };

uint64_t draw_bits(uint64_t seed, Kind kind, std::size_t index) {
  return SplitMix64(seed ^ (static_cast<uint64_t>(kind) << 56) ^ index).next();
}

// A seeded uniform draw in [0, 1).
bool is_drawn(uint64_t seed, Kind kind, std::size_t index, double fraction) {
  return static_cast<double>(draw_bits(seed, kind, index) >> 11) * 0x1.0p-53 < fraction;
}

}  // namespace

AugmentReport augment_training_split(Splits& splits, const CorpusOptions& options) {
  AugmentReport report;
  const std::size_t originals = splits.train.size();
  if (originals == 0) return report;
  const auto add = [&splits](SentencePair pair, std::size_t corpus) {
    splits.train.push_back(std::move(pair));
    splits.train_corpus.push_back(corpus);
  };
  for (std::size_t i = 0; i < originals; ++i) {
    const std::size_t corpus = splits.train_corpus[i];
    if (is_drawn(options.seed, Kind::kUpper, i, options.augment_upper)) {
      const SentencePair& pair = splits.train[i];
      add({text::to_upper(pair.source, options.source_lang),
           text::to_upper(pair.target, options.target_lang)},
          corpus);
      ++report.upper;
    }
    if (is_drawn(options.seed, Kind::kLower, i, options.augment_lower)) {
      const SentencePair& pair = splits.train[i];
      add({text::to_lower(pair.source, options.source_lang),
           text::to_lower(pair.target, options.target_lang)},
          corpus);
      ++report.lower;
    }
    if (originals > 1 && is_drawn(options.seed, Kind::kConcat, i, options.augment_concat)) {
      // Any other original pair: joined sentences need not follow each other in the corpus.
      std::size_t partner = SplitMix64(options.seed ^ (static_cast<uint64_t>(Kind::kPartner) << 56) ^ i)
                                .below(originals - 1);
      if (partner >= i) ++partner;
      const SentencePair& first = splits.train[i];
      const SentencePair& second = splits.train[partner];
      add({first.source + " " + second.source, first.target + " " + second.target}, corpus);
      ++report.joined;
    }
  }
  return report;
}

}  // namespace nmt::data
