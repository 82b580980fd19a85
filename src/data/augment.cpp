#include "nmt/data/augment.h"

#include <algorithm>
#include <functional>
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

std::optional<std::size_t> concat_partner(std::size_t index,
                                          std::size_t originals,
                                          const CorpusOptions& options) {
  if (originals < 2 || !is_drawn(options.seed, Kind::kConcat, index, options.augment_concat)) {
    return std::nullopt;
  }
  // Any other original pair: joined sentences need not follow each other in the corpus.
  std::size_t partner =
      SplitMix64(options.seed ^ (static_cast<uint64_t>(Kind::kPartner) << 56) ^ index)
          .below(originals - 1);
  if (partner >= index) ++partner;
  return partner;
}

void augment_pair(std::size_t index,
                  const SentencePair& pair,
                  const SentencePair* partner,
                  const CorpusOptions& options,
                  AugmentReport& report,
                  const std::function<void(SentencePair)>& add) {
  if (is_drawn(options.seed, Kind::kUpper, index, options.augment_upper)) {
    add({text::to_upper(pair.source, options.source_lang),
         text::to_upper(pair.target, options.target_lang)});
    ++report.upper;
  }
  if (is_drawn(options.seed, Kind::kLower, index, options.augment_lower)) {
    add({text::to_lower(pair.source, options.source_lang),
         text::to_lower(pair.target, options.target_lang)});
    ++report.lower;
  }
  if (partner) {
    add({pair.source + " " + partner->source, pair.target + " " + partner->target});
    ++report.joined;
  }
  if (is_drawn(options.seed, Kind::kPlaceholders, index, options.augment_placeholders)) {
    const uint64_t bits = draw_bits(options.seed, Kind::kPlaceholders, index);
    if (std::optional<SentencePair> protected_pair = with_placeholders(pair, bits >> 32)) {
      add(std::move(*protected_pair));
      ++report.placeholders;
    }
  }
}

bool augments(const CorpusOptions& options) {
  return options.augment_upper > 0 || options.augment_lower > 0 || options.augment_concat > 0 ||
         options.augment_placeholders > 0;
}

AugmentReport augment_training_split(Splits& splits, const CorpusOptions& options) {
  AugmentReport report;
  const std::size_t originals = splits.train.size();
  for (std::size_t i = 0; i < originals; ++i) {
    const std::size_t corpus = splits.train_corpus[i];
    const std::optional<std::size_t> partner = concat_partner(i, originals, options);
    // A copy: adding may move splits.train's pairs.
    const SentencePair pair = splits.train[i];
    const SentencePair partner_pair = partner ? splits.train[*partner] : SentencePair{};
    augment_pair(i, pair, partner ? &partner_pair : nullptr, options, report,
                 [&splits, corpus](SentencePair added) {
                   splits.train.push_back(std::move(added));
                   splits.train_corpus.push_back(corpus);
                 });
  }
  return report;
}

}  // namespace nmt::data
