// Training-split augmentation for text as people send it: pairs added in capitals and in lower
// case (both sides, ICU's rules for data.source_lang/target_lang), pairs made of two training
// pairs joined, so that a model trained on short sentences meets longer inputs and every casing,
// and pairs whose numbers, codes, URLs, e-mail addresses and capitalised words found unchanged on
// both sides are replaced by placeholders on both (text/placeholders.h), so that the model learns
// to copy a placeholder to its place.
// Only the training split is augmented; the originals stay. Each pair's draws are a hash of
// (seed, kind, index), so the same split and options give the same pairs on every platform.
// Torch-free; never logs.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "nmt/data/dataset.h"

namespace nmt::data {

struct AugmentReport {
  std::size_t upper = 0;   // pairs added in capitals (data.augment_upper)
  std::size_t lower = 0;   // pairs added in lower case (data.augment_lower)
  std::size_t joined = 0;  // pairs added as two pairs joined (data.augment_concat)
  std::size_t placeholders = 0;  // pairs added with placeholders (data.augment_placeholders)

  std::size_t total() const { return upper + lower + joined + placeholders; }
};

// Whether options add any pair.
bool augments(const CorpusOptions& options);

// The original training pair that pair `index` of `originals` is joined with (augment_concat), or
// nullopt when it is not drawn for joining.
std::optional<std::size_t> concat_partner(std::size_t index,
                                          std::size_t originals,
                                          const CorpusOptions& options);

// Calls add for every pair augmentation adds for original training pair `index`, in the order
// augment_training_split appends them; partner is the pair concat_partner names (null when none),
// so that a corpus on disk is augmented in one pass once the partners are read.
void augment_pair(std::size_t index,
                  const SentencePair& pair,
                  const SentencePair* partner,
                  const CorpusOptions& options,
                  AugmentReport& report,
                  const std::function<void(SentencePair)>& add);

// Appends the augmented pairs to splits.train (and their corpora to splits.train_corpus: a joined
// pair counts as its first pair's corpus).
AugmentReport augment_training_split(Splits& splits, const CorpusOptions& options);

}  // namespace nmt::data
