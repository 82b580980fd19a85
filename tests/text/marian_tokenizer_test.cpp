// Marian's tokenisation: SentencePiece's pieces through a vocabulary of their own, <EOS> appended
// to source sentences, a leading language tag as one token. The SentencePiece model here is one nmt
// trains; the vocabulary lists its pieces in another order, as Marian's vocab.json does.
#include "nmt/text/marian_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "nmt/error.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "test_utils.h"

namespace nmt::text {
namespace {

std::vector<std::string> marian_corpus() {
  std::vector<std::string> sentences;
  for (int repeat = 0; repeat < 20; ++repeat) {
    for (const char* sentence :
         {"¿Dónde está la biblioteca?", "Tom no ha hecho nada malo.", "Me gusta leer libros.",
          "Hace mucho frío hoy.", "El perro duerme en el jardín."}) {
      sentences.push_back(sentence);
    }
  }
  return sentences;
}

const SentencePieceTokenizer& subword_model() {
  static const SentencePieceTokenizer model = [] {
    TextOptions options;
    options.clean = CleanMode::kNormalize;
    options.tokenizer = TokenizerKind::kSentencePiece;
    options.vocab_size = 400;
    return SentencePieceTokenizer::train(marian_corpus(), options, 7);
  }();
  return model;
}

// nmt's specials, two language tags, then every piece of the SentencePiece model but `left_out`,
// in reverse order.
Vocab reversed_vocabulary(const std::string& left_out = "") {
  std::string lines = "<PAD>\n<SOS>\n<EOS>\n<UNK>\n>>spa<<\n>>fra<<\n";
  const SentencePieceTokenizer& model = subword_model();
  for (int64_t id = model.size() - 1; id >= kNumSpecials; --id) {
    const std::string piece = model.pieces({id})[0];
    if (piece != left_out) lines += piece + "\n";
  }
  std::istringstream in(lines);
  return Vocab::from_stream(in, "vocab");
}

MarianTokenizer marian(MarianTokenizer::Side side, Vocab vocabulary = reversed_vocabulary()) {
  return MarianTokenizer::from_parts(subword_model().serialized(), std::move(vocabulary), side,
                                     "spm");
}

// What the tokenizer must give: SentencePiece's pieces, each looked up in the vocabulary.
std::vector<int64_t> looked_up(const std::string& text, const Vocab& vocabulary) {
  std::vector<int64_t> ids;
  for (const std::string& piece : subword_model().pieces(subword_model().encode(text)))
    ids.push_back(vocabulary.id(piece));
  return ids;
}

TEST(MarianTokenizerTest, SourceIdsAreThePiecesInTheVocabularyThenEos) {
  const MarianTokenizer tokenizer = marian(MarianTokenizer::Side::kSource);
  std::vector<int64_t> expected = looked_up("Hace frío.", tokenizer.vocabulary());
  expected.push_back(kEosId);
  EXPECT_EQ(tokenizer.encode("Hace frío."), expected);
  // The vocabulary's order, not SentencePiece's: the ids differ from the model's own.
  EXPECT_NE(std::vector<int64_t>(expected.begin(), expected.end() - 1),
            subword_model().encode("Hace frío."));
}

TEST(MarianTokenizerTest, TargetIdsHaveNoEosAndDecodeToTheText) {
  const MarianTokenizer tokenizer = marian(MarianTokenizer::Side::kTarget);
  const auto ids = tokenizer.encode("El perro duerme.");
  EXPECT_EQ(ids, looked_up("El perro duerme.", tokenizer.vocabulary()));
  EXPECT_EQ(tokenizer.decode(ids), "El perro duerme.");
  std::vector<int64_t> with_specials = {kSosId};
  with_specials.insert(with_specials.end(), ids.begin(), ids.end());
  with_specials.insert(with_specials.end(), {kEosId, kPadId});
  EXPECT_EQ(tokenizer.decode(with_specials), "El perro duerme.");
}

TEST(MarianTokenizerTest, APieceTheVocabularyLacksIsUnk) {
  const std::string dropped = subword_model().pieces(subword_model().encode("perro"))[0];
  const MarianTokenizer tokenizer =
      marian(MarianTokenizer::Side::kSource, reversed_vocabulary(dropped));
  const auto ids = tokenizer.encode("perro");
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), kUnkId);
  EXPECT_EQ(ids.back(), kEosId);
}

TEST(MarianTokenizerTest, ALeadingLanguageTagIsOneTokenAndAnUnknownTagIsUnk) {
  const MarianTokenizer tokenizer = marian(MarianTokenizer::Side::kSource);
  const int64_t spa = tokenizer.vocabulary().id(">>spa<<");
  ASSERT_NE(spa, kUnkId);
  std::vector<int64_t> expected = {spa};
  for (const int64_t id : tokenizer.encode("Hace frío.")) expected.push_back(id);
  EXPECT_EQ(tokenizer.encode(">>spa<< Hace frío."), expected);
  expected[0] = kUnkId;
  EXPECT_EQ(tokenizer.encode(">>deu<< Hace frío."), expected);
  // Only a leading tag is one; the target side never splits one off.
  EXPECT_NE(tokenizer.encode("Hace >>spa<< frío.")[1], spa);
  EXPECT_NE(marian(MarianTokenizer::Side::kTarget).encode(">>spa<< Hace")[0], spa);
  EXPECT_EQ(tokenizer.language_tags(), (std::vector<std::string>{">>fra<<", ">>spa<<"}));
}

TEST(MarianTokenizerTest, PiecesAreTheVocabularysEntries) {
  const MarianTokenizer tokenizer = marian(MarianTokenizer::Side::kSource);
  EXPECT_EQ(tokenizer.pieces({kPadId, kEosId, 4, tokenizer.size()}),
            (std::vector<std::string>{"<PAD>", "<EOS>", ">>spa<<", "<?>"}));
  EXPECT_EQ(tokenizer.size(), reversed_vocabulary().size());
}

TEST(MarianTokenizerTest, SavedFilesLoadThroughTheRunsTextOptions) {
  testing::ScratchDir dir;
  const MarianTokenizer source = marian(MarianTokenizer::Side::kSource);
  const MarianTokenizer target = marian(MarianTokenizer::Side::kTarget);
  EXPECT_EQ(source.save(dir.path(), "marian.src"),
            (std::vector<std::string>{dir.file("marian.src.spm"), dir.file("marian.src.vocab")}));
  target.save(dir.path(), "marian.tgt");
  TextOptions options;
  options.tokenizer = TokenizerKind::kMarian;
  options.shared_vocab = true;
  const TokenizerPair loaded = load_tokenizers(options, dir.path());
  EXPECT_EQ(loaded.source->encode(">>spa<< Hace frío."), source.encode(">>spa<< Hace frío."));
  EXPECT_EQ(loaded.target->encode("Hace frío."), target.encode("Hace frío."));
  remove_tree(dir.file("marian.tgt.vocab"));
  try {
    (void)load_tokenizers(options, dir.path());
    FAIL() << "a missing vocabulary was accepted";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.file("marian.tgt.vocab") + ": tokenizer file is missing");
  }
}

TEST(MarianTokenizerTest, ANewRunCannotTrainOne) {
  TextOptions options;
  options.tokenizer = TokenizerKind::kMarian;
  try {
    (void)train_tokenizers(options, {"a"}, {"b"}, 1);
    FAIL() << "trained a marian tokenizer";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "tokenizer: \"marian\" is the tokenisation of a model imported from Hugging Face and "
              "cannot be trained; a new run uses \"sentencepiece\" or \"word\"");
  }
}

}  // namespace
}  // namespace nmt::text
