#include "nmt/text/tokenizer.h"

#include <filesystem>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/word_tokenizer.h"

namespace nmt::text {
namespace {

std::string file_stem(const TextOptions& options, const char* side) {
  const std::string base = options.tokenizer == TokenizerKind::kWord ? "vocab" : "spm";
  return options.shared_vocab ? base : base + "." + side;
}

std::string file_path(const TextOptions& options, const std::string& dir, const char* side) {
  const std::string extension = options.tokenizer == TokenizerKind::kWord ? ".txt" : ".model";
  return dir + "/" + file_stem(options, side) + extension;
}

std::shared_ptr<const Tokenizer> train_one(const TextOptions& options,
                                           const std::vector<std::string>& sentences,
                                           uint64_t seed) {
  if (options.tokenizer == TokenizerKind::kWord) {
    return std::make_shared<WordTokenizer>(Vocab::build(sentences, options.min_freq));
  }
  return std::make_shared<SentencePieceTokenizer>(
      SentencePieceTokenizer::train(sentences, options, seed));
}

std::shared_ptr<const Tokenizer> load_one(const TextOptions& options, const std::string& path) {
  if (!std::filesystem::exists(path)) throw DataError(path, "tokenizer file is missing");
  if (options.tokenizer == TokenizerKind::kWord)
    return std::make_shared<WordTokenizer>(Vocab::load(path));
  return std::make_shared<SentencePieceTokenizer>(SentencePieceTokenizer::load(path));
}

}  // namespace

void TextOptions::validate() const {
  check::positive("min_freq", min_freq);
  check::in_range("vocab_size", static_cast<double>(vocab_size), 16, 1'000'000);
  if (character_coverage <= 0.0 || character_coverage > 1.0) {
    throw ConfigError("character_coverage: expected a number in (0, 1], got " +
                      format_number(character_coverage));
  }
}

TokenizerPair train_tokenizers(const TextOptions& options,
                               const std::vector<std::string>& source_sentences,
                               const std::vector<std::string>& target_sentences,
                               uint64_t seed) {
  if (options.shared_vocab) {
    std::vector<std::string> both = source_sentences;
    both.insert(both.end(), target_sentences.begin(), target_sentences.end());
    auto shared = train_one(options, both, seed);
    return {shared, shared};
  }
  return {train_one(options, source_sentences, seed), train_one(options, target_sentences, seed)};
}

std::vector<std::string> save_tokenizers(const TextOptions& options,
                                         const TokenizerPair& tokenizers,
                                         const std::string& dir) {
  std::vector<std::string> paths = tokenizers.source->save(dir, file_stem(options, "src"));
  if (!options.shared_vocab) {
    const auto target_paths = tokenizers.target->save(dir, file_stem(options, "tgt"));
    paths.insert(paths.end(), target_paths.begin(), target_paths.end());
  }
  return paths;
}

TokenizerPair load_tokenizers(const TextOptions& options, const std::string& dir) {
  auto source = load_one(options, file_path(options, dir, "src"));
  if (options.shared_vocab) return {source, source};
  return {source, load_one(options, file_path(options, dir, "tgt"))};
}

}  // namespace nmt::text
