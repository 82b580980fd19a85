// An imported Marian vocabulary in nmt's ids: the specials first, taking Marian's special rows,
// then every other Marian id in order.
#include "nmt/import/marian_vocabulary.h"

#include <gtest/gtest.h>

#include <sstream>

#include "nmt/error.h"
#include "nmt/text/vocab.h"

namespace nmt::import {
namespace {

MarianVocabulary opus_mt_shaped() {
  MarianVocabulary vocabulary;
  vocabulary.path = "vocab.json";
  vocabulary.pieces = {"</s>",
                       "<unk>",
                       "\xe2\x96\x81"
                       "a",
                       "b",
                       ">>spa<<",
                       "<pad>"};
  vocabulary.unk_id = 1;
  return vocabulary;
}

MarianIds ids_with_pad(int64_t pad, int64_t decoder_start) {
  MarianIds ids;
  ids.pad = pad;
  ids.decoder_start = decoder_start;
  ids.eos = 0;
  ids.vocab_size = ids.decoder_vocab_size = 6;
  return ids;
}

TEST(NmtVocabularyOrderTest, PadIsAlsoTheStartAndTheOtherIdsKeepTheirOrder) {
  const NmtVocabularyOrder order = nmt_vocabulary_order(opus_mt_shaped(), ids_with_pad(5, 5));
  EXPECT_EQ(order.pieces, (std::vector<std::string>{"<PAD>", "<SOS>", "<EOS>", "<UNK>",
                                                    "\xe2\x96\x81"
                                                    "a",
                                                    "b", ">>spa<<"}));
  EXPECT_EQ(order.marian_rows, (std::vector<int64_t>{5, 5, 0, 1, 2, 3, 4}));
  // The file reads back as nmt's vocabulary, specials where nmt wants them.
  std::istringstream in(vocabulary_file_text(order));
  const text::Vocab vocab = text::Vocab::from_stream(in, "vocab");
  EXPECT_EQ(vocab.size(), 7);
  EXPECT_EQ(vocab.id(">>spa<<"), 6);
}

TEST(NmtVocabularyOrderTest, ADecoderStartOtherThanPadTakesTheSosRow) {
  const NmtVocabularyOrder order = nmt_vocabulary_order(opus_mt_shaped(), ids_with_pad(5, 4));
  EXPECT_EQ(order.marian_rows, (std::vector<int64_t>{5, 4, 0, 1, 2, 3}));
  EXPECT_EQ(order.pieces.size(), 6u);
}

TEST(NmtVocabularyOrderTest, ASpecialIdOutsideTheVocabularyIsRefused) {
  try {
    (void)nmt_vocabulary_order(opus_mt_shaped(), ids_with_pad(9, 9));
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "vocab.json: special id 9 is outside the vocabulary's 6 ids");
  }
}

}  // namespace
}  // namespace nmt::import
