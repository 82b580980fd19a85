// Tokenizer interface and the text options that choose one.
//
// A tokenizer maps a cleaned sentence (see clean.h) to ids and back. Ids 0-3 are always
// <PAD> <SOS> <EOS> <UNK> (vocab.h), for word and subword models alike, so the model and the
// searches never need to know which kind they run with. encode() never adds <SOS>/<EOS>.
// Implementations: WordTokenizer (word_tokenizer.h, the notebook's) and SentencePieceTokenizer
// (sentencepiece_tokenizer.h). Torch-free; throws ConfigError/DataError; never logs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/text/clean.h"

namespace nmt::text {

// kMarian: SentencePiece pieces looked up in a vocabulary of their own, as Marian's models (and
// OPUS-MT's) tokenise; only imported runs have one (marian_tokenizer.h).
enum class TokenizerKind { kWord, kSentencePiece, kMarian };
enum class SubwordModel { kUnigram, kBpe };

// The "text" section of the configuration.
struct TextOptions {
  CleanMode clean = CleanMode::kNotebook;          // normalisation applied to both sides
  TokenizerKind tokenizer = TokenizerKind::kWord;  // word (notebook) or sentencepiece
  int64_t min_freq = 1;       // word vocab: keep words seen at least this often in train
  int64_t vocab_size = 8000;  // sentencepiece: pieces per vocabulary, specials included
  bool shared_vocab = false;  // one vocabulary for both languages
  SubwordModel model_type = SubwordModel::kUnigram;  // sentencepiece algorithm
  double character_coverage = 1.0;                   // sentencepiece: share of characters kept
  int64_t vocab_max_pairs = 300'000;  // trained vocabularies: built from a seeded sample of at
                                      // most this many training pairs; 0 = all of them
  // Subword regularisation: training pairs are segmented anew every epoch, at random (validation,
  // translation and the vocabulary never sample). Unigram models (Kudo 2018):
  int64_t sampling_nbest = 0;   // sample among the n best segmentations (-1: all); 0 and 1 = off
  double sampling_alpha = 0.0;  // smoothing: P(segmentation)^alpha (0.1-0.5 in Kudo 2018)
  double bpe_dropout = 0.0;     // bpe models: each merge skipped with this probability
                                // (Provilkov et al. 2020 used 0.1); 0 = off
  // A trained run whose tokenizers (and the text settings that made them) this run uses instead of
  // training its own: a student distilled from that run, or another member of its ensemble.
  std::string vocab_from;

  // Throws ConfigError naming the field.
  void validate() const;
};

// Subword regularisation in SentencePiece's terms, SampleEncode(text, nbest_size, alpha).
struct SubwordSampling {
  int nbest_size = -1;  // unigram: -1 = every segmentation, > 1 = the n best; bpe: unused
  float alpha = 0.0f;   // unigram: smoothing; bpe: dropout probability
};

// What options.sampling_* or bpe_dropout ask for; nullopt when they sample nothing.
std::optional<SubwordSampling> subword_sampling(const TextOptions& options);

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Ids of a cleaned sentence, without <SOS>/<EOS>. Unknown material maps to kUnkId.
  [[nodiscard]] virtual std::vector<int64_t> encode(std::string_view cleaned) const = 0;
  // Text in the form references are scored in: word models join tokens with single spaces (the
  // notebook's form), subword models detokenise. Specials are dropped.
  [[nodiscard]] virtual std::string decode(const std::vector<int64_t>& ids) const = 0;
  // Text for a reader: like decode(), with word-model punctuation joined to the words.
  [[nodiscard]] virtual std::string render(const std::vector<int64_t>& ids) const = 0;
  // One display string per id (specials included), for attention pictures.
  [[nodiscard]] virtual std::vector<std::string> pieces(const std::vector<int64_t>& ids) const = 0;
  // Number of ids, specials included.
  [[nodiscard]] virtual int64_t size() const = 0;
  // Writes the tokenizer's file(s) into dir under stem (e.g. "vocab.src"); returns the paths.
  virtual std::vector<std::string> save(const std::string& dir, const std::string& stem) const = 0;
};

// Source and target tokenizers; both point at the same object when the vocabulary is shared.
struct TokenizerPair {
  std::shared_ptr<const Tokenizer> source;
  std::shared_ptr<const Tokenizer> target;
};

// Builds tokenizers from the cleaned training sentences. `seed` makes subword training repeatable.
// Subword models keep each of whole_pieces as one piece (placeholders.h); word models have every
// word whole anyway.
TokenizerPair train_tokenizers(const TextOptions& options,
                               const std::vector<std::string>& source_sentences,
                               const std::vector<std::string>& target_sentences,
                               uint64_t seed,
                               const std::vector<std::string>& whole_pieces = {});

// Saves into dir as vocab.{src,tgt}.txt / vocab.txt (word), spm.{src,tgt}.model / spm.model
// (sentencepiece) or marian.{src,tgt}.{spm,vocab} (marian: two SentencePiece models even when the
// vocabulary is shared).
std::vector<std::string> save_tokenizers(const TextOptions& options,
                                         const TokenizerPair& tokenizers,
                                         const std::string& dir);

// Loads what save_tokenizers wrote; throws DataError when a file is missing or malformed.
TokenizerPair load_tokenizers(const TextOptions& options, const std::string& dir);

}  // namespace nmt::text
