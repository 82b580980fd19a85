// Built into libnmt_sentencepiece.so only (see sentencepiece_backend.h).
#include "text/sentencepiece_backend.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <random>

// The generator SentencePiece samples with: one per thread, seeded once, when the thread first
// samples (SetRandomGeneratorSeed reaches only threads that have not sampled yet). libsentencepiece
// exports it (0.1.97 to 0.2.0) but declares it in a header it does not install (src/util.h).
namespace sentencepiece::random {
std::mt19937* GetRandomGenerator();
}  // namespace sentencepiece::random

namespace nmt::text {
namespace {

class VectorIterator final : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& sentences) : sentences_(sentences) {}
  bool done() const override { return index_ >= sentences_.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return sentences_[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& sentences_;
  std::size_t index_ = 0;
};

class LibraryBackend final : public SentencePieceBackend {
 public:
  std::string train(const std::vector<std::string>& sentences,
                    const std::unordered_map<std::string, std::string>& arguments,
                    unsigned int seed,
                    std::string& model) override {
    sentencepiece::SetRandomGeneratorSeed(seed);
    VectorIterator iterator(sentences);
    const auto status = sentencepiece::SentencePieceTrainer::Train(arguments, &iterator, &model);
    return status.ok() ? "" : status.ToString();
  }

  std::string load(const std::string& serialized) override {
    const auto status = processor_.LoadFromSerializedProto(serialized);
    return status.ok() ? "" : status.ToString();
  }

  std::vector<int> encode(const std::string& text) const override {
    std::vector<int> ids;
    processor_.Encode(text, &ids).IgnoreError();
    return ids;
  }

  std::vector<int> sample_encode(const std::string& text,
                                 int nbest_size,
                                 float alpha,
                                 uint32_t seed) const override {
    // Reseeding the thread's generator for each sentence makes its sample depend on (text, seed)
    // alone, not on which thread encodes it or what that thread sampled before.
    sentencepiece::random::GetRandomGenerator()->seed(seed);
    std::vector<int> ids;
    processor_.SampleEncode(text, nbest_size, alpha, &ids).IgnoreError();
    return ids;
  }

  std::string decode(const std::vector<int>& ids) const override {
    std::string text;
    processor_.Decode(ids, &text).IgnoreError();
    return text;
  }

  std::string decode_pieces(const std::vector<std::string>& pieces) const override {
    std::string text;
    processor_.Decode(pieces, &text).IgnoreError();
    return text;
  }

  std::string piece(int id) const override { return processor_.IdToPiece(id); }
  float score(int id) const override { return processor_.GetScore(id); }
  bool is_byte(int id) const override { return processor_.IsByte(id); }
  int size() const override { return processor_.GetPieceSize(); }
  std::vector<int> special_ids() const override {
    return {processor_.pad_id(), processor_.bos_id(), processor_.eos_id(), processor_.unk_id()};
  }

 private:
  sentencepiece::SentencePieceProcessor processor_;
};

}  // namespace
}  // namespace nmt::text

extern "C" nmt::text::SentencePieceBackend* nmt_create_sentencepiece_backend() {
  return new nmt::text::LibraryBackend();
}
