#include "nmt/text/sentencepiece_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

#include "nmt/error.h"
#include "nmt/text/placeholders.h"
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

// Every segmentation a sampled encoding gives, over seeds 1..count.
std::set<std::vector<int64_t>> samples_over_seeds(const SentencePieceTokenizer& tokenizer,
                                                  const std::string& text,
                                                  const SubwordSampling& sampling,
                                                  uint32_t count) {
  std::set<std::vector<int64_t>> seen;
  for (uint32_t seed = 1; seed <= count; ++seed) {
    const std::vector<int64_t> ids = tokenizer.sample(text, sampling, seed);
    EXPECT_EQ(tokenizer.decode(ids), text) << "a sample is a segmentation of the same text";
    seen.insert(ids);
  }
  return seen;
}

// Subword regularisation (Kudo 2018): a unigram model samples among segmentations; a seed gives
// the same sample on any thread, whatever was sampled before, and encode() stays deterministic.
TEST(SentencePieceTokenizerTest, UnigramSamplesAreReproducibleForASeedAndVaryWithIt) {
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), small_options(), 7);
  const std::string text = "Mañana iremos a la playa con nuestros amigos.";
  const std::vector<int64_t> best = tokenizer.encode(text);
  const SubwordSampling sampling{-1, 0.2f};
  const std::vector<int64_t> first = tokenizer.sample(text, sampling, 42);
  EXPECT_GT(samples_over_seeds(tokenizer, text, sampling, 30).size(), 3u);
  EXPECT_EQ(tokenizer.sample(text, sampling, 42), first) << "after 30 other samples";
  std::vector<int64_t> on_another_thread;
  std::thread([&] { on_another_thread = tokenizer.sample(text, sampling, 42); }).join();
  EXPECT_EQ(on_another_thread, first);
  EXPECT_EQ(tokenizer.encode(text), best) << "sampling leaves deterministic encoding unchanged";
  // Among the 2 best segmentations only.
  EXPECT_LE(samples_over_seeds(tokenizer, text, SubwordSampling{2, 0.2f}, 30).size(), 2u);
}

// BPE-dropout (Provilkov et al. 2020): SentencePiece's alpha on a BPE model is the probability of
// skipping a merge; at 0 every sample is the deterministic segmentation.
TEST(SentencePieceTokenizerTest, BpeDropoutSamplesSegmentationsOfBpeModels) {
  TextOptions options = small_options();
  options.model_type = SubwordModel::kBpe;
  const auto tokenizer = SentencePieceTokenizer::train(corpus(), options, 7);
  const std::string text = "Mañana iremos a la playa con nuestros amigos.";
  const std::set<std::vector<int64_t>> dropped =
      samples_over_seeds(tokenizer, text, SubwordSampling{-1, 0.1f}, 30);
  EXPECT_GT(dropped.size(), 3u);
  EXPECT_EQ(tokenizer.sample(text, SubwordSampling{-1, 0.1f}, 9),
            tokenizer.sample(text, SubwordSampling{-1, 0.1f}, 9));
  EXPECT_EQ(samples_over_seeds(tokenizer, text, SubwordSampling{-1, 0.0f}, 5),
            std::set<std::vector<int64_t>>{tokenizer.encode(text)});
}

TEST(SentencePieceTokenizerTest, RejectsFilesThatAreNotModels) {
  testing::ScratchDir dir;
  EXPECT_THROW(SentencePieceTokenizer::load(dir.write("bad.model", "not a model")), DataError);
}

}  // namespace
}  // namespace nmt::text

namespace nmt::text {
namespace {

TEST(SentencePieceTokenizerTest, KeepsPlaceholdersWholeOnlyWhenTrainedWithThem) {
  const auto plain = std::make_shared<SentencePieceTokenizer>(
      SentencePieceTokenizer::train(corpus(), small_options(), 7));
  EXPECT_FALSE(keeps_placeholders({plain, plain})) << "byte pieces, not one piece each";
  const auto with = std::make_shared<SentencePieceTokenizer>(
      SentencePieceTokenizer::train(corpus(), small_options(), 7, placeholder_symbols()));
  EXPECT_TRUE(keeps_placeholders({with, with}));
  EXPECT_FALSE(keeps_placeholders({with, plain})) << "both sides must keep them";
  const std::vector<int64_t> ids = with->encode("Llama al ⦅2⦆ hoy.");
  EXPECT_EQ(with->decode(ids), "Llama al ⦅2⦆ hoy.");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), with->encode("⦅2⦆").back()), 1);
}

}  // namespace
}  // namespace nmt::text
