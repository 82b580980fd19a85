// The SentencePiece library behind an interface that crosses a dlopen boundary.
//
// Why: Debian's libsentencepiece.so carries its own copy of protobuf-lite and exports its symbols,
// and Debian's LibTorch links the system libprotobuf.so. Loaded into one global symbol scope, the
// two copies interpose each other and the process crashes before main(). The SentencePiece code
// therefore lives in a separate module (libnmt_sentencepiece.so) that nmt loads with
// RTLD_LOCAL | RTLD_DEEPBIND, so each copy of protobuf only ever sees itself. Calls go through
// this class's vtable; both sides share the C++ standard library, so std types cross safely.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace nmt::text {

class SentencePieceBackend {
 public:
  virtual ~SentencePieceBackend() = default;

  // Trains a model on sentences with SentencePiece trainer arguments; returns "" on success and
  // the serialized model in model, else the library's error.
  virtual std::string train(const std::vector<std::string>& sentences,
                            const std::unordered_map<std::string, std::string>& arguments,
                            unsigned int seed,
                            std::string& model) = 0;
  // Loads a serialized model; returns "" or the library's error.
  virtual std::string load(const std::string& serialized) = 0;
  virtual std::vector<int> encode(const std::string& text) const = 0;
  // Ids of text in a segmentation SentencePiece samples (SampleEncode: a unigram model draws from
  // its n best segmentations, or from all of them when nbest_size is -1, with smoothing alpha; a
  // BPE model drops each merge with probability alpha), drawn with a generator seeded by seed
  // alone. Thread-safe.
  virtual std::vector<int> sample_encode(const std::string& text,
                                         int nbest_size,
                                         float alpha,
                                         uint32_t seed) const = 0;
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  // Text of pieces; a piece the model does not know passes through as its own text (▁ a space),
  // as transformers' MarianTokenizer relies on when one vocabulary serves two models.
  virtual std::string decode_pieces(const std::vector<std::string>& pieces) const = 0;
  virtual std::string piece(int id) const = 0;
  // The piece's score in the model (a unigram log-probability; a BPE merge rank, negated) and
  // whether it is a byte piece (<0x41>), never a piece of text.
  virtual float score(int id) const = 0;
  virtual bool is_byte(int id) const = 0;
  virtual int size() const = 0;
  // <PAD>, <SOS>, <EOS>, <UNK> ids of the loaded model.
  virtual std::vector<int> special_ids() const = 0;
};

}  // namespace nmt::text

// Exported by libnmt_sentencepiece.so: a new backend, owned by the caller.
extern "C" nmt::text::SentencePieceBackend* nmt_create_sentencepiece_backend();
