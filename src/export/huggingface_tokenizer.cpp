#include "export/huggingface_tokenizer.h"

#include <algorithm>
#include <string>

#include "nmt/error.h"
#include "nmt/export/huggingface.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::exporter::detail {
namespace {

using nlohmann::json;

// The characters Python's str.split() splits at, which nmt's normalize() squeezes (clean.cpp):
// the C0 separators and every character of categories Zs, Zl and Zp.
constexpr const char* kWhitespaceRun =
    "[\t\n\v\f\r\x1c-\x1f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+";

constexpr const char* kWordBoundary = "\u2581";

json added_token(int64_t id) {
  return {{"id", id},
          {"content", text::kSpecialTokens[id]},
          {"single_word", false},
          {"lstrip", false},
          {"rstrip", false},
          {"normalized", false},
          {"special", true}};
}

json normalizer() {
  return {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "NFKC"}},
            {{"type", "Replace"}, {"pattern", {{"Regex", kWhitespaceRun}}}, {"content", " "}},
            {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}}}};
}

json metaspace() {
  return {{"type", "Metaspace"},
          {"replacement", kWordBoundary},
          {"prepend_scheme", "always"},
          {"split", true}};
}

// MarianTokenizer's names of the specials, by exported id: 0 </s>, 1 <unk>, 2 <pad>, 3 <s> (the
// decoder start, nmt's <SOS> row).
constexpr const char* kMarianSpecials[text::kNumSpecials] = {"</s>", "<unk>", "<pad>", "<s>"};

}  // namespace

json marian_vocabulary_json(const text::Tokenizer& tokenizer) {
  const auto* marian = dynamic_cast<const text::MarianTokenizer*>(&tokenizer);
  if (marian == nullptr) throw Error("cannot export: the run's tokenizer is not Marian's");
  const text::Vocab& vocabulary = marian->vocabulary();
  const auto* const specials_end = std::end(kMarianSpecials);
  json pieces = json::object();
  for (int64_t id = 0; id < text::kNumSpecials; ++id) pieces[kMarianSpecials[id]] = id;
  for (int64_t id = text::kNumSpecials; id < vocabulary.size(); ++id) {
    const std::string& piece = vocabulary.token(id);
    if (std::find(std::begin(kMarianSpecials), specials_end, piece) != specials_end) {
      throw ConfigError("cannot export: the vocabulary holds " + piece +
                        " as an ordinary piece (id " + std::to_string(id) +
                        "), a name transformers' tokenizer keeps for a special token");
    }
    pieces[piece] = huggingface_id(id);
  }
  return pieces;
}

json marian_tokenizer_config(const Config& config, int64_t max_positions) {
  json decoder = json::object();
  for (int64_t id = 0; id < text::kNumSpecials; ++id) {
    decoder[std::to_string(id)] = {{"content", kMarianSpecials[id]},
                                   {"lstrip", false},
                                   {"normalized", false},
                                   {"rstrip", false},
                                   {"single_word", false},
                                   {"special", true}};
  }
  return {
      {"added_tokens_decoder", decoder},
      // So that decode(skip_special_tokens) drops the decoder start too.
      {"additional_special_tokens", {"<s>"}},
      {"tokenizer_class", "MarianTokenizer"},
      {"source_lang", config.data.source_lang},
      {"target_lang", config.data.target_lang},
      {"separate_vocabs", !config.text.shared_vocab},
      {"eos_token", "</s>"},
      {"unk_token", "<unk>"},
      {"pad_token", "<pad>"},
      {"model_max_length", max_positions},
      {"sp_model_kwargs", json::object()},
  };
}

json unigram_tokenizer_json(const std::vector<text::SentencePieceTokenizer::ScoredPiece>& pieces) {
  json vocabulary = json::array();
  for (const auto& piece : pieces) vocabulary.push_back({piece.text, piece.score});
  json added = json::array();
  for (int64_t id = 0; id < text::kNumSpecials; ++id) added.push_back(added_token(id));
  return {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer", normalizer()},
      {"pre_tokenizer", metaspace()},
      {"post_processor", nullptr},
      // "▁" back to a space, byte pieces (<0xC3><0xB1>) to their bytes fused into characters,
      // and the space before the first word dropped, as SentencePiece decodes.
      {"decoder",
       {{"type", "Sequence"},
        {"decoders",
         {{{"type", "Replace"}, {"pattern", {{"String", kWordBoundary}}}, {"content", " "}},
          {{"type", "ByteFallback"}},
          {{"type", "Fuse"}},
          {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"model",
       {{"type", "Unigram"},
        {"unk_id", text::kUnkId},
        {"vocab", vocabulary},
        {"byte_fallback", true}}},
  };
}

json fast_tokenizer_config(int64_t max_positions) {
  json decoder = json::object();
  for (int64_t id = 0; id < text::kNumSpecials; ++id) {
    json token = added_token(id);
    token.erase("id");
    decoder[std::to_string(id)] = token;
  }
  return {
      {"tokenizer_class", "PreTrainedTokenizerFast"},
      {"added_tokens_decoder", decoder},
      {"pad_token", text::kSpecialTokens[text::kPadId]},
      {"bos_token", text::kSpecialTokens[text::kSosId]},
      {"eos_token", text::kSpecialTokens[text::kEosId]},
      {"unk_token", text::kSpecialTokens[text::kUnkId]},
      {"model_max_length", max_positions},
      // transformers would otherwise take the space out of " ." and "n 't" when decoding.
      {"clean_up_tokenization_spaces", false},
  };
}

}  // namespace nmt::exporter::detail
