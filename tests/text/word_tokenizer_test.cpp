#include "nmt/text/word_tokenizer.h"

#include <gtest/gtest.h>

#include "test_utils.h"

namespace nmt::text {
namespace {

TEST(WordTokenizerTest, EncodesLikeTheNotebook) {
  const WordTokenizer tokenizer(Vocab::build({"¿ cómo estás ?", "estás bien"}, 1));
  EXPECT_EQ(tokenizer.encode("¿ cómo estás ?"), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(tokenizer.encode("estás mal"), (std::vector<int64_t>{6, kUnkId}));
  EXPECT_TRUE(tokenizer.encode("").empty());
}

TEST(WordTokenizerTest, DecodeDropsSpecialsAndRenderJoinsPunctuation) {
  const WordTokenizer tokenizer(Vocab::build({"¿ cómo estás ?"}, 1));
  const std::vector<int64_t> ids = {kSosId, 4, 5, 6, 7, kEosId, kPadId};
  EXPECT_EQ(tokenizer.decode(ids), "¿ cómo estás ?");
  EXPECT_EQ(tokenizer.render(ids), "¿cómo estás?");
  EXPECT_EQ(tokenizer.decode({4, kUnkId}), "¿ <UNK>");
  EXPECT_EQ(tokenizer.pieces({kSosId, 5}), (std::vector<std::string>{"<SOS>", "cómo"}));
}

TEST(TokenizerPairTest, TrainSaveLoadRoundTripForWordVocabularies) {
  TextOptions options;
  const auto pair = train_tokenizers(options, {"i am here"}, {"estoy aquí"}, 1);
  testing::ScratchDir dir;
  const auto files = save_tokenizers(options, pair, dir.path());
  ASSERT_EQ(files.size(), 2u);
  const auto loaded = load_tokenizers(options, dir.path());
  EXPECT_EQ(loaded.source->encode("i am here"), pair.source->encode("i am here"));
  EXPECT_EQ(loaded.target->decode(loaded.target->encode("estoy aquí")), "estoy aquí");
}

TEST(TokenizerPairTest, SharedVocabularyCoversBothSides) {
  TextOptions options;
  options.shared_vocab = true;
  const auto pair = train_tokenizers(options, {"hello"}, {"hola"}, 1);
  EXPECT_EQ(pair.source, pair.target);
  EXPECT_EQ(pair.source->size(), 6);
  testing::ScratchDir dir;
  EXPECT_EQ(save_tokenizers(options, pair, dir.path()),
            std::vector<std::string>{dir.file("vocab.txt")});
}

}  // namespace
}  // namespace nmt::text
