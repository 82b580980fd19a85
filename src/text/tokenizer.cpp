#include "nmt/text/tokenizer.h"

#include <filesystem>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/word_tokenizer.h"

namespace nmt::text {
namespace {

std::string file_stem(const TextOptions& options, const char* side) {
  if (options.tokenizer == TokenizerKind::kMarian) return std::string("marian.") + side;
  const std::string base = options.tokenizer == TokenizerKind::kWord ? "vocab" : "spm";
  return options.shared_vocab ? base : base + "." + side;
}

std::shared_ptr<const Tokenizer> load_marian(const std::string& dir,
                                             const char* side,
                                             MarianTokenizer::Side which) {
  const std::string stem = dir + "/marian." + side;
  for (const std::string& path : {stem + ".spm", stem + ".vocab"}) {
    if (!std::filesystem::exists(path)) throw DataError(path, "tokenizer file is missing");
  }
  return std::make_shared<MarianTokenizer>(
      MarianTokenizer::load(stem + ".spm", stem + ".vocab", which));
}

std::string file_path(const TextOptions& options, const std::string& dir, const char* side) {
  const std::string extension = options.tokenizer == TokenizerKind::kWord ? ".txt" : ".model";
  return dir + "/" + file_stem(options, side) + extension;
}

std::shared_ptr<const Tokenizer> train_one(const TextOptions& options,
                                           const std::vector<std::string>& sentences,
                                           uint64_t seed,
                                           const std::vector<std::string>& whole_pieces) {
  if (options.tokenizer == TokenizerKind::kWord) {
    return std::make_shared<WordTokenizer>(Vocab::build(sentences, options.min_freq));
  }
  if (options.tokenizer == TokenizerKind::kMarian) {
    throw ConfigError("tokenizer",
                      "\"marian\" is the tokenisation of a model imported from Hugging Face and "
                      "cannot be trained; a new run uses \"sentencepiece\" or \"word\"");
  }
  return std::make_shared<SentencePieceTokenizer>(
      SentencePieceTokenizer::train(sentences, options, seed, whole_pieces));
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
    throw ConfigError("character_coverage",
                      "expected a number in (0, 1], got " + format_number(character_coverage));
  }
  if (sampling_nbest < -1 || sampling_nbest > 512) {  // SentencePiece's limit
    throw ConfigError("sampling_nbest",
                      "expected -1 (every segmentation), 0 or 1 (off) or at most 512, got " +
                          std::to_string(sampling_nbest));
  }
  check::non_negative("sampling_alpha", sampling_alpha);
  check::fraction("bpe_dropout", bpe_dropout);
  check::file_name("vocab_from", vocab_from);
  const bool is_sentencepiece = tokenizer == TokenizerKind::kSentencePiece;
  const bool samples_unigram = sampling_nbest != 0 && sampling_nbest != 1;
  if (samples_unigram || sampling_alpha > 0.0) {
    const char* key = samples_unigram ? "sampling_nbest" : "sampling_alpha";
    if (!is_sentencepiece) {
      throw ConfigError(key,
                        "subword sampling needs tokenizer \"sentencepiece\" (a word vocabulary "
                        "has one segmentation)");
    }
    if (model_type != SubwordModel::kUnigram) {
      throw ConfigError(key,
                        "samples segmentations of unigram models; model_type \"bpe\" samples "
                        "with bpe_dropout");
    }
    if (!samples_unigram) {
      throw ConfigError("sampling_alpha",
                        "needs sampling_nbest -1 (every segmentation) or above 1 "
                        "(the n best); 0 and 1 sample nothing");
    }
    if (sampling_alpha <= 0.0) {
      throw ConfigError("sampling_alpha", "expected a positive number with sampling_nbest " +
                                              std::to_string(sampling_nbest) +
                                              " (Kudo 2018: 0.1-0.5), got " +
                                              format_number(sampling_alpha));
    }
  }
  if (bpe_dropout > 0.0) {
    if (!is_sentencepiece) {
      throw ConfigError("bpe_dropout", "needs tokenizer \"sentencepiece\" with model_type \"bpe\"");
    }
    if (model_type != SubwordModel::kBpe) {
      throw ConfigError("bpe_dropout",
                        "needs model_type \"bpe\"; unigram models sample with sampling_nbest and "
                        "sampling_alpha");
    }
  }
}

std::optional<SubwordSampling> subword_sampling(const TextOptions& options) {
  if (options.bpe_dropout > 0.0)
    return SubwordSampling{-1, static_cast<float>(options.bpe_dropout)};
  if (options.sampling_nbest == 0 || options.sampling_nbest == 1) return std::nullopt;
  return SubwordSampling{static_cast<int>(options.sampling_nbest),
                         static_cast<float>(options.sampling_alpha)};
}

TokenizerPair train_tokenizers(const TextOptions& options,
                               const std::vector<std::string>& source_sentences,
                               const std::vector<std::string>& target_sentences,
                               uint64_t seed,
                               const std::vector<std::string>& whole_pieces) {
  if (options.shared_vocab) {
    std::vector<std::string> both = source_sentences;
    both.insert(both.end(), target_sentences.begin(), target_sentences.end());
    auto shared = train_one(options, both, seed, whole_pieces);
    return {shared, shared};
  }
  return {train_one(options, source_sentences, seed, whole_pieces),
          train_one(options, target_sentences, seed, whole_pieces)};
}

std::vector<std::string> save_tokenizers(const TextOptions& options,
                                         const TokenizerPair& tokenizers,
                                         const std::string& dir) {
  std::vector<std::string> paths = tokenizers.source->save(dir, file_stem(options, "src"));
  if (!options.shared_vocab || options.tokenizer == TokenizerKind::kMarian) {
    const auto target_paths = tokenizers.target->save(dir, file_stem(options, "tgt"));
    paths.insert(paths.end(), target_paths.begin(), target_paths.end());
  }
  return paths;
}

TokenizerPair load_tokenizers(const TextOptions& options, const std::string& dir) {
  if (options.tokenizer == TokenizerKind::kMarian) {
    return {load_marian(dir, "src", MarianTokenizer::Side::kSource),
            load_marian(dir, "tgt", MarianTokenizer::Side::kTarget)};
  }
  auto source = load_one(options, file_path(options, dir, "src"));
  if (options.shared_vocab) return {source, source};
  return {source, load_one(options, file_path(options, dir, "tgt"))};
}

}  // namespace nmt::text
