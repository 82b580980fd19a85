#include "nmt/text/vocab.h"

#include <gtest/gtest.h>

#include <sstream>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt::text {
namespace {

TEST(VocabTest, BuildsSpecialsThenWordsInFirstSeenOrder) {
  const Vocab vocab = Vocab::build({"b a b", "c a", "d"}, 1);
  ASSERT_EQ(vocab.size(), 8);
  EXPECT_EQ(vocab.token(kPadId), "<PAD>");
  EXPECT_EQ(vocab.token(kSosId), "<SOS>");
  EXPECT_EQ(vocab.token(kEosId), "<EOS>");
  EXPECT_EQ(vocab.token(kUnkId), "<UNK>");
  EXPECT_EQ(vocab.token(4), "b");
  EXPECT_EQ(vocab.token(5), "a");
  EXPECT_EQ(vocab.token(6), "c");
  EXPECT_EQ(vocab.token(7), "d");
}

TEST(VocabTest, MinFreqDropsRareWordsAndUnknownsMapToUnk) {
  const Vocab vocab = Vocab::build({"b a b", "c a", "d"}, 2);
  ASSERT_EQ(vocab.size(), 6);
  EXPECT_EQ(vocab.id("b"), 4);
  EXPECT_EQ(vocab.id("a"), 5);
  EXPECT_EQ(vocab.id("c"), kUnkId);
  EXPECT_EQ(vocab.id("never"), kUnkId);
}

TEST(VocabTest, SaveLoadRoundTrip) {
  const Vocab vocab = Vocab::build({"¿ dónde está ?", "aquí está"}, 1);
  testing::ScratchDir dir;
  vocab.save(dir.file("vocab.txt"));
  EXPECT_EQ(testing::read_file(dir.file("vocab.txt")),
            "<PAD>\n<SOS>\n<EOS>\n<UNK>\n¿\ndónde\nestá\n?\naquí\n");
  EXPECT_EQ(Vocab::load(dir.file("vocab.txt")), vocab);
}

TEST(VocabTest, RejectsMalformedFilesWithLineNumbers) {
  std::istringstream missing_specials("<PAD>\nhola\n");
  try {
    Vocab::from_stream(missing_specials, "v.txt");
    FAIL() << "expected DataError";
  } catch (const DataError& error) {
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(std::string(error.what()).find("v.txt:2: expected the special token <SOS>"),
              std::string::npos);
  }
  std::istringstream duplicate("<PAD>\n<SOS>\n<EOS>\n<UNK>\nx\nx\n");
  EXPECT_THROW(Vocab::from_stream(duplicate, "v.txt"), DataError);
  std::istringstream with_space("<PAD>\n<SOS>\n<EOS>\n<UNK>\na b\n");
  EXPECT_THROW(Vocab::from_stream(with_space, "v.txt"), DataError);
  EXPECT_THROW(Vocab::load("/nonexistent/vocab.txt"), DataError);
}

// Found by tests/fuzz/vocab_fuzz.cpp: "a\r\r\n" was read as the token "a\r", which save() wrote
// as "a\r\n" and a reload read as "a".
TEST(VocabTest, RejectsTokensWithWhitespaceThatSaveWouldNotKeep) {
  for (const char* line : {"a\r\r\n", "a\rb\n", "a\vb\n", "a\fb\n"}) {
    std::istringstream in(std::string("<PAD>\n<SOS>\n<EOS>\n<UNK>\n") + line);
    EXPECT_THROW(Vocab::from_stream(in, "v.txt"), DataError) << line;
  }
  std::istringstream crlf("<PAD>\r\n<SOS>\r\n<EOS>\r\n<UNK>\r\na\r\n");
  EXPECT_EQ(Vocab::from_stream(crlf, "v.txt").token(4), "a");
}

TEST(VocabTest, TokenOutOfRangeThrows) {
  const Vocab vocab = Vocab::build({"a"}, 1);
  EXPECT_THROW(vocab.token(5), std::out_of_range);
  EXPECT_THROW(vocab.token(-1), std::out_of_range);
}

}  // namespace
}  // namespace nmt::text
