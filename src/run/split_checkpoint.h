// The data phase's first step, reading, cleaning and splitting the corpora (69 of 187 s of
// `nmt prepare` on 10M pairs on two cores), kept in the run directory until the phase ends: a phase
// stopped after it (Ctrl-C, SIGTERM, a full disk, a vocabulary that cannot be read) starts the next
// time from the split instead of reading the corpora again, as training resumes from its
// checkpoint.
//
// Its files are the split's training text, the training corpus of each of its pairs (4 bytes a
// pair), the dev and test pairs, and last, written atomically, split.json.tmp: the counts, the read
// reports and the inputs they came from (the data settings, text.clean, and each corpus file's
// size and modification time). A split is used only when all of them are present, whole and made
// from the same inputs; otherwise it is made again.
//
// The vocabularies trained on that split (SentencePiece's training, on one thread, and the pass
// that takes its sample) are kept the same way, in split.vocab.tmp/ with split.vocab.json.tmp
// naming the text settings they were trained with: they are used again only with the split they
// came from and the same settings.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "nmt/data/dataset.h"
#include "nmt/run/config.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"

namespace nmt::run {

// A finished split and prepare.json's "corpora" entries of the files it read.
struct CheckpointedSplit {
  data::StreamedSplits splits;
  nlohmann::json reads;
};

class SplitCheckpoint {
 public:
  SplitCheckpoint(const RunDir& dir, const Config& config);

  // Where the split's training text is written (as data::write_pairs writes it).
  const std::string& train_text() const { return train_text_; }

  // The split kept by an earlier data phase of the same inputs, or nothing (then any earlier
  // split's marker is gone, so that a split stopped half-written is never taken for a whole one).
  // Logs why a kept split is not used.
  std::optional<CheckpointedSplit> take() const;

  // Keeps the split (whose training text is at train_text()) until remove().
  void save(const CheckpointedSplit& split) const;

  // The vocabularies kept by an earlier data phase of the split take() gave and of these text
  // settings, or nothing. Logs why kept ones are not used.
  std::optional<text::TokenizerPair> take_vocabularies(const text::TextOptions& options) const;

  // Keeps the vocabularies trained on the split until remove() or a new split.
  void save_vocabularies(const text::TextOptions& options,
                         const text::TokenizerPair& tokenizers) const;

  // Removes every file of the split and of its vocabularies: the data phase has ended.
  void remove() const;

 private:
  std::string path(const char* name) const;
  void remove_vocabularies() const;

  std::string dir_;
  std::string train_text_;
  nlohmann::json inputs_;
};

}  // namespace nmt::run
