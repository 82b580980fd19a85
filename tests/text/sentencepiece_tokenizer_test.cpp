#include "nmt/text/sentencepiece_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "nmt/error.h"
#include "nmt/text/vocab.h"
#include "test_utils.h"

namespace nmt::text {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> sentences;
  const std::vector<std::string> base = {
      "¿Dónde está la biblioteca?",    "Tom no ha hecho nada malo.",
      "Me gusta leer libros.",         "Ella vive en una casa grande.",
      "¿Puedes ayudarme, por favor?",  "Hace mucho frío hoy.",
      "Nosotros comemos pan y queso.", "El perro duerme en el jardín.",
      "¡Qué día tan bonito!",          "Mañana iremos a la playa con nuestros amigos."};
  for (int repeat = 0; repeat < 20; ++repeat) {
    for (const auto& sentence : base) sentences.push_back(sentence);
  }
  return sentences;
}

TextOptions small_options() {
  TextOptions options;
  options.clean = CleanMode::kNormalize;
  options.tokenizer = TokenizerKind::kSentencePiece;
  options.vocab_size = 400;
  return options;
}

TEST(SentencePieceTokenizerTest, TrainingIsDeterministicForASeed) {
  const auto first = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  const auto second = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  EXPECT_EQ(first.serialized(), second.serialized());
  EXPECT_EQ(first.encode("¿Dónde está el perro?"), second.encode("¿Dónde está el perro?"));
}

TEST(SentencePieceTokenizerTest, RoundTripsRawTextIncludingUnseenCharacters) {
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  for (const std::string text :
       {"¿Dónde está la biblioteca?", "Tom no ha hecho nada malo.", "Zoë visitó Kraków 3 veces."}) {
    const auto ids = tokenizer.encode(text);
    EXPECT_EQ(tokenizer.decode(ids), text);
    for (const int64_t id : ids) EXPECT_NE(id, kUnkId) << text;  // byte fallback, not <UNK>
  }
}

TEST(SentencePieceTokenizerTest, UsesTheSharedSpecialIds) {
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  EXPECT_EQ(tokenizer.pieces({kPadId, kSosId, kEosId, kUnkId}),
            (std::vector<std::string>{"<PAD>", "<SOS>", "<EOS>", "<UNK>"}));
  EXPECT_EQ(tokenizer.decode({kSosId, kEosId, kPadId}), "");
}

TEST(SentencePieceTokenizerTest, SaveLoadGivesTheSameModel) {
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  testing::ScratchDir dir;
  const auto files = tokenizer.save(dir.path(), "spm");
  ASSERT_EQ(files, std::vector<std::string>{dir.file("spm.model")});
  const auto loaded = SentencePieceTokenizer::load(files[0]);
  EXPECT_EQ(loaded.size(), tokenizer.size());
  EXPECT_EQ(loaded.encode("Hace frío."), tokenizer.encode("Hace frío."));
}

// The saved file is a standard SentencePiece model: Python's sentencepiece package (Debian's
// python3-sentencepiece) loads it and splits text into the same pieces.
TEST(SentencePieceTokenizerTest, PythonSentencepieceLoadsTheSavedModel) {
  if (std::system("/usr/bin/python3 -c 'import sentencepiece' > /dev/null 2>&1") != 0) {
    GTEST_SKIP()
        << "Python's sentencepiece module is not installed (apt install python3-sentencepiece)";
  }
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  testing::ScratchDir dir;
  const std::string model = tokenizer.save(dir.path(), "spm")[0];
  const std::string text = "¿Dónde está el perro?";
  const auto result = testing::run_command(
      "/usr/bin/python3 -c \"import sentencepiece as s, sys; p = "
      "s.SentencePieceProcessor(model_file=sys.argv[1]); "
      "print(' '.join(map(str, p.encode(sys.argv[2]))))\" '" +
      model + "' '" + text + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::string expected;
  for (const int64_t id : tokenizer.encode(text))
    expected += (expected.empty() ? "" : " ") + std::to_string(id);
  EXPECT_EQ(result.output, expected + "\n");
}

TEST(SentencePieceTokenizerTest, RejectsFilesThatAreNotModels) {
  testing::ScratchDir dir;
  EXPECT_THROW(SentencePieceTokenizer::load(dir.write("bad.model", "not a model")), DataError);
}

}  // namespace
}  // namespace nmt::text
