// Marian's (OPUS-MT's) tokenisation, for models imported from Hugging Face: a SentencePiece model
// cuts text into pieces and a vocabulary maps each piece to the model's id. Those ids are not
// SentencePiece's, and one vocabulary may serve two SentencePiece models (source.spm and
// target.spm), so the vocabulary is a file of its own: one piece per line, line n = id n-1, ids 0-3
// nmt's specials <PAD> <SOS> <EOS> <UNK> (vocab.h) standing for Marian's <pad> (also its decoder
// start), </s> and <unk>.
//
// As Marian's models were trained: the source side appends <EOS> to every sentence, and a leading
// language tag (">>spa<<", how multi-target models are told the output language) is one id
// (<UNK> when the vocabulary lacks it), the rest of the sentence cut into pieces after it. Pieces
// the vocabulary lacks are <UNK>. Torch-free; throws DataError for unreadable files; never logs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/text/tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::text {

class SentencePieceBackend;

class MarianTokenizer final : public Tokenizer {
 public:
  enum class Side { kSource, kTarget };

  // Reads a SentencePiece model file and a vocabulary file (Vocab's format).
  static MarianTokenizer load(const std::string& spm_path,
                              const std::string& vocab_path,
                              Side side);
  // From a serialized SentencePiece model and a vocabulary; `name` is used in error messages.
  static MarianTokenizer from_parts(const std::string& spm_bytes,
                                    Vocab vocabulary,
                                    Side side,
                                    const std::string& name);

  // Source side: the pieces' ids, then <EOS>. Target side: the pieces' ids alone.
  std::vector<int64_t> encode(std::string_view cleaned) const override;
  // The pieces detokenised by the SentencePiece model, as Marian's tokenizer decodes; specials
  // (<UNK> too, as transformers' skip_special_tokens) are dropped.
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string render(const std::vector<int64_t>& ids) const override { return decode(ids); }
  std::vector<std::string> pieces(const std::vector<int64_t>& ids) const override;
  int64_t size() const override { return vocabulary_.size(); }
  // Writes stem.spm and stem.vocab.
  std::vector<std::string> save(const std::string& dir, const std::string& stem) const override;

  // The vocabulary's language tags (">>spa<<"), sorted.
  std::vector<std::string> language_tags() const;
  const Vocab& vocabulary() const { return vocabulary_; }
  Side side() const { return side_; }

 private:
  MarianTokenizer(std::shared_ptr<SentencePieceBackend> backend,
                  std::string serialized,
                  Vocab vocabulary,
                  Side side);
  void append_pieces(const std::string& text, std::vector<int64_t>& ids) const;

  std::shared_ptr<SentencePieceBackend> backend_;
  std::string serialized_;
  Vocab vocabulary_;
  Side side_;
};

// The language tags of a source tokenizer (MarianTokenizer::language_tags); none for the others.
std::vector<std::string> language_tags(const Tokenizer& source);

// The tag that asks a multi-target model for target_lang ("spa" or ">>spa<<" -> ">>spa<<"), for
// `decode.target_lang` / --target-lang. Throws ConfigError naming the key and listing the model's
// tags when it has no such tag, or saying that it has none.
std::string language_tag(const Tokenizer& source, const std::string& target_lang);

}  // namespace nmt::text
