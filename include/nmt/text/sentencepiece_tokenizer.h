// Subword tokenizer backed by the SentencePiece library. Models are trained in memory on the
// cleaned training sentences with ids 0-3 = <PAD> <SOS> <EOS> <UNK>, and saved as standard
// `.model` files that Python's `sentencepiece` package loads. The library is reached through a
// separately loaded module (src/text/sentencepiece_backend.h says why). Torch-free; throws
// DataError on a model that cannot be trained or read; never logs.
#pragma once

#include <memory>

#include "nmt/text/tokenizer.h"

namespace nmt::text {

class SentencePieceBackend;

class SentencePieceTokenizer final : public Tokenizer {
 public:
  // Trains a model on sentences (already cleaned). The result depends only on the sentences, the
  // options, seed and whole_pieces: strings always kept as one piece each (placeholders.h).
  static SentencePieceTokenizer train(const std::vector<std::string>& sentences,
                                      const TextOptions& options,
                                      uint64_t seed,
                                      const std::vector<std::string>& whole_pieces = {});
  // Reads a `.model` file.
  static SentencePieceTokenizer load(const std::string& path);
  // From the bytes of a serialized model; `name` is used in error messages.
  static SentencePieceTokenizer from_serialized(const std::string& bytes, const std::string& name);

  std::vector<int64_t> encode(std::string_view cleaned) const override;
  // Ids of a cleaned sentence in a segmentation sampled for subword regularisation (Kudo 2018;
  // BPE-dropout, Provilkov et al. 2020). The sample depends only on the sentence, sampling and
  // seed, whichever thread draws it. Thread-safe, like encode().
  std::vector<int64_t> sample(std::string_view cleaned,
                              const SubwordSampling& sampling,
                              uint32_t seed) const;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string render(const std::vector<int64_t>& ids) const override { return decode(ids); }
  std::vector<std::string> pieces(const std::vector<int64_t>& ids) const override;
  int64_t size() const override;
  std::vector<std::string> save(const std::string& dir, const std::string& stem) const override;

  // Every piece of the model by id, with its score, as another SentencePiece implementation
  // needs them (nmt export --format huggingface writes them into tokenizer.json).
  struct ScoredPiece {
    std::string text;
    float score = 0.0F;
    bool is_byte = false;
  };
  std::vector<ScoredPiece> scored_pieces() const;

  // The serialized model proto (the content of the .model file).
  const std::string& serialized() const { return serialized_; }

 private:
  SentencePieceTokenizer(std::shared_ptr<SentencePieceBackend> backend, std::string serialized);

  std::shared_ptr<SentencePieceBackend> backend_;
  std::string serialized_;
};

}  // namespace nmt::text
