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
//
// The tokenizing pass (about half of a prepare of millions of pairs) writes the training split in
// up to 32 parts, each a text file and a token file kept as it is finished, with
// split.parts.json.tmp naming how many there are, the training-text pairs they cover, the pass's
// counts after them and the vocabularies they were tokenized with (the text settings and each
// vocabulary file's size and CRC-32): a pass stopped half-way goes on after its last part, with
// the split it came from and the same vocabularies, and loses at most one part's work.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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

// The finished parts of the tokenizing pass: parts 0 .. count-1 (SplitCheckpoint::part_text and
// part_ids), covering the training text's first input_pairs pairs.
struct TokenizedParts {
  std::size_t count = 0;
  std::size_t input_pairs = 0;
  nlohmann::json counts;  // the pass's own counts after them, kept for it to go on from
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

  // Where the tokenizing pass writes part `part` of the training split: text, token ids.
  std::string part_text(std::size_t part) const;
  std::string part_ids(std::size_t part) const;

  // The parts kept by an earlier tokenizing pass of the split take() gave, tokenized with these
  // text settings and the vocabularies saved in vocabulary_files, or nothing (then the parts are
  // gone). Logs why kept parts are not used.
  std::optional<TokenizedParts> take_parts(const text::TextOptions& options,
                                           const std::vector<std::string>& vocabulary_files) const;

  // Keeps parts (whose files are written) until remove() or a new split.
  void save_parts(const text::TextOptions& options,
                  const std::vector<std::string>& vocabulary_files,
                  const TokenizedParts& parts) const;

  // Removes every file of the split, of its vocabularies and of its parts: the data phase has
  // ended.
  void remove() const;

 private:
  std::string path(const char* name) const;
  void remove_vocabularies() const;
  void remove_parts() const;

  std::string dir_;
  std::string train_text_;
  nlohmann::json inputs_;
};

}  // namespace nmt::run
