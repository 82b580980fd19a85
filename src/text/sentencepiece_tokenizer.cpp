#include "nmt/text/sentencepiece_tokenizer.h"

#include <unordered_map>

#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/vocab.h"
#include "text/sentencepiece_loader.h"

namespace nmt::text {
namespace {

std::unordered_map<std::string, std::string> trainer_arguments(
    const TextOptions& options, const std::vector<std::string>& whole_pieces) {
  std::unordered_map<std::string, std::string> arguments = {
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
  if (!whole_pieces.empty()) {
    std::string symbols;
    for (const std::string& piece : whole_pieces) symbols += (symbols.empty() ? "" : ",") + piece;
    arguments["user_defined_symbols"] = symbols;
  }
  return arguments;
}

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(std::shared_ptr<SentencePieceBackend> backend,
                                               std::string serialized)
    : backend_(std::move(backend)), serialized_(std::move(serialized)) {}

SentencePieceTokenizer SentencePieceTokenizer::train(const std::vector<std::string>& sentences,
                                                     const TextOptions& options,
                                                     uint64_t seed,
                                                     const std::vector<std::string>& whole_pieces) {
  if (sentences.empty()) throw DataError("sentencepiece", "no training sentences");
  std::string serialized;
  const std::string error = make_sentencepiece_backend()->train(
      sentences, trainer_arguments(options, whole_pieces), static_cast<unsigned int>(seed), serialized);
  if (!error.empty()) throw DataError("sentencepiece", "training failed: " + error);
  return from_serialized(serialized, "sentencepiece");
}

SentencePieceTokenizer SentencePieceTokenizer::from_serialized(const std::string& bytes,
                                                               const std::string& name) {
  auto backend = make_sentencepiece_backend();
  const std::string error = backend->load(bytes);
  if (!error.empty()) throw DataError(name, "not a SentencePiece model: " + error);
  if (backend->special_ids() != std::vector<int>{kPadId, kSosId, kEosId, kUnkId}) {
    throw DataError(name, "expected special ids <PAD>=0 <SOS>=1 <EOS>=2 <UNK>=3");
  }
  return SentencePieceTokenizer(std::move(backend), bytes);
}

SentencePieceTokenizer SentencePieceTokenizer::load(const std::string& path) {
  return from_serialized(read_text_file(path), path);
}

std::vector<int64_t> SentencePieceTokenizer::encode(std::string_view cleaned) const {
  const std::vector<int> ids = backend_->encode(std::string(cleaned));
  return {ids.begin(), ids.end()};
}

std::vector<int64_t> SentencePieceTokenizer::sample(std::string_view cleaned,
                                                    const SubwordSampling& sampling,
                                                    uint32_t seed) const {
  const std::vector<int> ids =
      backend_->sample_encode(std::string(cleaned), sampling.nbest_size, sampling.alpha, seed);
  return {ids.begin(), ids.end()};
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::vector<int> kept;
  kept.reserve(ids.size());
  for (const int64_t id : ids) {
    if (id == kPadId || id == kSosId || id == kEosId || id < 0 || id >= size()) continue;
    kept.push_back(static_cast<int>(id));
  }
  return backend_->decode(kept);
}

std::vector<std::string> SentencePieceTokenizer::pieces(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const int64_t id : ids)
    out.push_back(id >= 0 && id < size() ? backend_->piece(static_cast<int>(id)) : "<?>");
  return out;
}

std::vector<SentencePieceTokenizer::ScoredPiece> SentencePieceTokenizer::scored_pieces() const {
  std::vector<ScoredPiece> out;
  out.reserve(static_cast<std::size_t>(size()));
  for (int id = 0; id < backend_->size(); ++id) {
    out.push_back({backend_->piece(id), backend_->score(id), backend_->is_byte(id)});
  }
  return out;
}

int64_t SentencePieceTokenizer::size() const { return backend_->size(); }

std::vector<std::string> SentencePieceTokenizer::save(const std::string& dir,
                                                      const std::string& stem) const {
  const std::string path = dir + "/" + stem + ".model";
  write_text_atomically(path, serialized_);
  return {path};
}

}  // namespace nmt::text
