#include "nmt/text/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/vocab.h"

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

std::unordered_map<std::string, std::string> trainer_arguments(const TextOptions& options) {
  return {
      {"model_type", options.model_type == SubwordModel::kBpe ? "bpe" : "unigram"},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"character_coverage", std::to_string(options.character_coverage)},
      // Text arrives already normalised (clean.h); SentencePiece must not change it again, so
      // that decode(encode(text)) == text.
      {"normalization_rule_name", "identity"},
      // Characters never seen in training become bytes instead of <UNK>.
      {"byte_fallback", "true"},
      {"hard_vocab_limit", "false"},
      {"pad_id", "0"},
      {"bos_id", "1"},
      {"eos_id", "2"},
      {"unk_id", "3"},
      {"pad_piece", kSpecialTokens[kPadId]},
      {"bos_piece", kSpecialTokens[kSosId]},
      {"eos_piece", kSpecialTokens[kEosId]},
      {"unk_piece", kSpecialTokens[kUnkId]},
      // Multi-threaded EM sums in a varying order; one thread makes training repeatable.
      {"num_threads", "1"},
      {"minloglevel", "2"},
  };
}

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(
    std::unique_ptr<sentencepiece::SentencePieceProcessor> processor, std::string serialized)
    : processor_(std::move(processor)), serialized_(std::move(serialized)) {}

SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer& SentencePieceTokenizer::operator=(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

SentencePieceTokenizer SentencePieceTokenizer::train(const std::vector<std::string>& sentences,
                                                     const TextOptions& options,
                                                     uint64_t seed) {
  if (sentences.empty()) throw DataError("sentencepiece", "no training sentences");
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned int>(seed));
  VectorIterator iterator(sentences);
  std::string serialized;
  const auto status =
      sentencepiece::SentencePieceTrainer::Train(trainer_arguments(options), &iterator, &serialized);
  if (!status.ok()) {
    throw DataError("sentencepiece", "training failed: " + std::string(status.ToString()));
  }
  return from_serialized(serialized, "sentencepiece");
}

SentencePieceTokenizer SentencePieceTokenizer::from_serialized(const std::string& bytes,
                                                               const std::string& name) {
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(bytes);
  if (!status.ok()) throw DataError(name, "not a SentencePiece model: " + std::string(status.ToString()));
  if (processor->pad_id() != kPadId || processor->bos_id() != kSosId || processor->eos_id() != kEosId ||
      processor->unk_id() != kUnkId) {
    throw DataError(name, "expected special ids <PAD>=0 <SOS>=1 <EOS>=2 <UNK>=3");
  }
  return SentencePieceTokenizer(std::move(processor), bytes);
}

SentencePieceTokenizer SentencePieceTokenizer::load(const std::string& path) {
  return from_serialized(read_text_file(path), path);
}

std::vector<int64_t> SentencePieceTokenizer::encode(std::string_view cleaned) const {
  std::vector<int> ids;
  processor_->Encode(std::string(cleaned), &ids).IgnoreError();
  return {ids.begin(), ids.end()};
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::vector<int> kept;
  kept.reserve(ids.size());
  for (const int64_t id : ids) {
    if (id == kPadId || id == kSosId || id == kEosId || id < 0 || id >= size()) continue;
    kept.push_back(static_cast<int>(id));
  }
  std::string text;
  processor_->Decode(kept, &text).IgnoreError();
  return text;
}

std::vector<std::string> SentencePieceTokenizer::pieces(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const int64_t id : ids) {
    out.push_back(id >= 0 && id < size() ? processor_->IdToPiece(static_cast<int>(id)) : "<?>");
  }
  return out;
}

int64_t SentencePieceTokenizer::size() const { return processor_->GetPieceSize(); }

std::vector<std::string> SentencePieceTokenizer::save(const std::string& dir, const std::string& stem) const {
  const std::string path = dir + "/" + stem + ".model";
  write_text_atomically(path, serialized_);
  return {path};
}

}  // namespace nmt::text
