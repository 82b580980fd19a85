#include "nmt/data/augment.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "data/random.h"
#include "nmt/text/casing.h"
#include "nmt/text/placeholders.h"

namespace nmt::data {
namespace {

// Distinct streams of draws per kind of augmentation, so that raising one fraction does not move
// the pairs another picks.
enum class Kind : uint64_t { kUpper = 1, kLower = 2, kConcat = 3, kPartner = 4, kPlaceholders = 5 };

uint64_t draw_bits(uint64_t seed, Kind kind, std::size_t index) {
  return SplitMix64(seed ^ (static_cast<uint64_t>(kind) << 56) ^ index).next();
}

// A seeded uniform draw in [0, 1).
bool is_drawn(uint64_t seed, Kind kind, std::size_t index, double fraction) {
  return static_cast<double>(draw_bits(seed, kind, index) >> 11) * 0x1.0p-53 < fraction;
}

// The pair with placeholders for the spans of its source found unchanged in its target, or
// nullopt when there is none. Numbering starts at a drawn placeholder so that every one of them
// is learnt in every place, as a long input needs ⦅7⦆ where most sentences need only ⦅1⦆.
std::optional<SentencePair> with_placeholders(const SentencePair& pair, uint64_t bits) {
  std::vector<std::string> in_target;
  for (const text::VerbatimSpan& span : text::find_verbatim_spans(pair.target)) {
    in_target.push_back(pair.target.substr(span.begin, span.size));
  }
  if (in_target.empty()) return std::nullopt;
  const text::ProtectedText source = text::protect_spans(
      pair.source, [&in_target](const text::VerbatimSpan&, std::string_view original) {
        return std::find(in_target.begin(), in_target.end(), original) != in_target.end();
      });
  if (source.originals.empty()) return std::nullopt;
  const std::size_t skipped = bits % (text::kMaxPlaceholders - source.originals.size() + 1);
  std::vector<std::string> numbered(skipped);  // empty strings: no span equals one
  numbered.insert(numbered.end(), source.originals.begin(), source.originals.end());
  SentencePair protected_pair{text::apply_placeholders(pair.source, numbered),
                              text::apply_placeholders(pair.target, numbered)};
  // A span joined on the source side ("Tran Thi Lan") may be apart on the target side: a pair
  // whose placeholders differ between its sides would teach the model to drop or invent them.
  for (std::size_t n = skipped + 1; n <= numbered.size(); ++n) {
    const std::string symbol = text::placeholder(static_cast<int>(n));
    if (protected_pair.target.find(symbol) == std::string::npos) return std::nullopt;
  }
  return protected_pair;
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
    if (is_drawn(options.seed, Kind::kPlaceholders, i, options.augment_placeholders)) {
      const uint64_t bits = draw_bits(options.seed, Kind::kPlaceholders, i);
      if (std::optional<SentencePair> pair = with_placeholders(splits.train[i], bits >> 32)) {
        add(std::move(*pair), corpus);
        ++report.placeholders;
      }
    }
  }
  return report;
}

}  // namespace nmt::data
