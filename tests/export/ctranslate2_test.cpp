// nmt export --format ctranslate2 on tiny models: TransformerSpec's names, nmt's weights in their
// layout, the position table, the scalars, aliases of shared and tied embeddings, config.json and
// the vocabularies, and what an export refuses. The round trip through CTranslate2 itself is
// tests/export/round_trip_test.sh.
#include "nmt/export/ctranslate2.h"

#include <gtest/gtest.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "export/model_bin_reader.h"
#include "nmt/error.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/sentencepiece_tokenizer.h"
#include "nmt/text/word_tokenizer.h"
#include "test_utils.h"

namespace nmt::exporter {
namespace {

namespace fs = std::filesystem;

model::TransformerOptions one_layer(model::NormPosition norm) {
  model::TransformerOptions options;
  options.d_model = 16;
  options.layers = 1;
  options.heads = 4;
  options.ff_mult = 2;
  options.norm = norm;
  return options;
}

// Every parameter random, so that only weights that really are one share a name in model.bin.
model::Transformer make_model(const model::TransformerOptions& options,
                              int64_t source_vocab,
                              int64_t target_vocab) {
  torch::manual_seed(11);
  model::Transformer model(options, source_vocab, target_vocab);
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters()) parameter.normal_();
  model->eval();
  return model;
}

std::shared_ptr<const text::Tokenizer> words(const std::string& sentence) {
  return std::make_shared<text::WordTokenizer>(text::Vocab::build({sentence}, 1));
}

// Source vocabulary of 12 tokens, target of 10.
text::TokenizerPair two_vocabularies() { return {words("a b c d e f g h"), words("x y z w v u")}; }

testing::ReadModelBin read_exported(const std::string& dir) {
  return testing::read_model_bin(testing::read_file(dir + "/model.bin"));
}

std::vector<std::string> all_names(const testing::ReadModelBin& model) {
  std::vector<std::string> names = model.names();
  for (const auto& [alias, target] : model.aliases) names.push_back(alias);
  std::sort(names.begin(), names.end());
  return names;
}

std::string bytes_of(const torch::Tensor& tensor) {
  const torch::Tensor values = tensor.detach().contiguous();
  return std::string(static_cast<const char*>(values.data_ptr()),
                     static_cast<std::size_t>(values.numel()) * sizeof(float));
}

class Ctranslate2ExportTest : public ::testing::Test {
 protected:
  ExportReport export_to(const model::Transformer& model,
                         const text::TokenizerPair& tokenizers,
                         const std::string& name,
                         Ctranslate2Options options = {}) {
    options.max_positions = 8;
    return write_ctranslate2(*model, tokenizers, text::TextOptions{}, scratch_.file(name), options);
  }

  testing::ScratchDir scratch_;
};

TEST_F(Ctranslate2ExportTest, APostNormModelHasTransformerSpecsNames) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  export_to(model, two_vocabularies(), "out");
  std::vector<std::string> expected = {
      "decoder/activation",      "decoder/alibi",           "decoder/alibi_use_positive_positions",
      "decoder/alignment_heads", "decoder/alignment_layer", "decoder/embeddings/weight"};
  for (const std::string sublayer : {"attention", "ffn", "self_attention"}) {
    expected.push_back("decoder/layer_0/" + sublayer + "/layer_norm/beta");
    expected.push_back("decoder/layer_0/" + sublayer + "/layer_norm/gamma");
    const int linears = sublayer == "attention" ? 3 : 2;
    for (int i = 0; i < linears; ++i) {
      expected.push_back("decoder/layer_0/" + sublayer + "/linear_" + std::to_string(i) + "/bias");
      expected.push_back("decoder/layer_0/" + sublayer + "/linear_" + std::to_string(i) +
                         "/weight");
    }
  }
  expected.insert(
      expected.end(),
      {"decoder/num_heads", "decoder/position_encodings/encodings", "decoder/pre_norm",
       "decoder/projection/bias", "decoder/projection/weight", "decoder/scale_alibi",
       "decoder/scale_embeddings", "decoder/start_from_zero_embedding", "encoder/activation",
       "encoder/embeddings_0/weight", "encoder/embeddings_merge"});
  for (const std::string sublayer : {"ffn", "self_attention"}) {
    expected.push_back("encoder/layer_0/" + sublayer + "/layer_norm/beta");
    expected.push_back("encoder/layer_0/" + sublayer + "/layer_norm/gamma");
    for (int i = 0; i < 2; ++i) {
      expected.push_back("encoder/layer_0/" + sublayer + "/linear_" + std::to_string(i) + "/bias");
      expected.push_back("encoder/layer_0/" + sublayer + "/linear_" + std::to_string(i) +
                         "/weight");
    }
  }
  expected.insert(expected.end(), {"encoder/multi_query_attention", "encoder/num_heads",
                                   "encoder/position_encodings/encodings", "encoder/pre_norm",
                                   "encoder/scale_embeddings"});
  const auto exported = read_exported(scratch_.file("out"));
  EXPECT_EQ(exported.spec, "TransformerSpec");
  EXPECT_EQ(exported.revision, 7u);
  const std::vector<std::string> stored = exported.names();
  EXPECT_TRUE(std::is_sorted(stored.begin(), stored.end()));
  EXPECT_EQ(all_names(exported), expected);
  // The two position tables are one: the encoder's is an alias of the decoder's.
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"encoder/position_encodings/encodings", "decoder/position_encodings/encodings"}};
  EXPECT_EQ(exported.aliases, aliases);
}

TEST_F(Ctranslate2ExportTest, APreNormModelAddsTheFinalNormOfEachStack) {
  const auto model = make_model(one_layer(model::NormPosition::kPre), 12, 10);
  export_to(model, two_vocabularies(), "out");
  const auto exported = read_exported(scratch_.file("out"));
  const auto params = model->named_parameters();
  EXPECT_EQ(exported.variable("encoder/layer_norm/gamma").bytes,
            bytes_of(params["encoder_norm.weight"]));
  EXPECT_EQ(exported.variable("decoder/layer_norm/beta").bytes,
            bytes_of(params["decoder_norm.bias"]));
  EXPECT_EQ(exported.variable("encoder/pre_norm").scalar(), 1);
  EXPECT_EQ(exported.variable("decoder/pre_norm").scalar(), 1);
}

TEST_F(Ctranslate2ExportTest, WeightsKeepNmtsLayoutAndValues) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  export_to(model, two_vocabularies(), "out");
  const auto exported = read_exported(scratch_.file("out"));
  const auto params = model->named_parameters();
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"encoder/embeddings_0/weight", "source_embedding.weight"},
      {"decoder/embeddings/weight", "target_embedding.weight"},
      {"encoder/layer_0/self_attention/linear_0/weight", "encoder.0.self_attention.in_proj.weight"},
      {"encoder/layer_0/self_attention/layer_norm/gamma", "encoder.0.norm1.weight"},
      {"encoder/layer_0/ffn/linear_0/bias", "encoder.0.feed_forward.expand.bias"},
      {"decoder/layer_0/attention/linear_0/weight", "decoder.0.cross_attention.in_proj.weight"},
      {"decoder/layer_0/attention/linear_1/weight", "decoder.0.cross_attention.kv_proj.weight"},
      {"decoder/layer_0/attention/linear_2/bias", "decoder.0.cross_attention.out_proj.bias"},
      {"decoder/layer_0/attention/layer_norm/beta", "decoder.0.norm2.bias"},
      {"decoder/layer_0/ffn/layer_norm/gamma", "decoder.0.norm3.weight"},
      {"decoder/projection/weight", "output.weight"},
      {"decoder/projection/bias", "output.bias"},
  };
  for (const auto& [ct2, nmt] : pairs) {
    const auto& variable = exported.variable(ct2);
    EXPECT_EQ(variable.type, 0) << ct2;
    EXPECT_EQ(variable.shape, params[nmt].sizes().vec()) << ct2;
    EXPECT_EQ(variable.bytes, bytes_of(params[nmt])) << ct2 << " <- " << nmt;
  }
  EXPECT_EQ(exported.variable("decoder/layer_0/self_attention/linear_0/weight").shape,
            (std::vector<int64_t>{48, 16}));
  EXPECT_EQ(exported.variable("decoder/layer_0/attention/linear_1/weight").shape,
            (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(exported.variable("decoder/projection/weight").shape, (std::vector<int64_t>{10, 16}));
}

TEST_F(Ctranslate2ExportTest, PositionTablesAreNmtsInterleavedSinusoidsFromPositionZero) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  export_to(model, two_vocabularies(), "out");
  const auto exported = read_exported(scratch_.file("out"));
  const auto& table = exported.variable("decoder/position_encodings/encodings");
  ASSERT_EQ(table.shape, (std::vector<int64_t>{8, 16}));
  for (std::size_t column = 0; column < 16; ++column) {
    EXPECT_EQ(table.f32(column), column % 2 == 0 ? 0.0f : 1.0f) << column;  // sin 0, cos 0
  }
  EXPECT_NEAR(table.f32(16), std::sin(1.0), 1e-6);  // row 1: sin(1)
  EXPECT_NEAR(table.f32(17), std::cos(1.0), 1e-6);  // cos(1)
  EXPECT_NEAR(table.f32(18), std::sin(1.0 / std::pow(10000.0, 2.0 / 16)), 1e-6);
  EXPECT_NEAR(table.f32(7 * 16 + 15), std::cos(7.0 / std::pow(10000.0, 14.0 / 16)), 1e-6);
  EXPECT_EQ(table.bytes, bytes_of(model::sinusoidal_positions(
                             0, 8, 16, model::PositionLayout::kInterleaved, torch::kCPU)));
}

TEST_F(Ctranslate2ExportTest, ScalarsDescribeTheArchitecture) {
  auto options = one_layer(model::NormPosition::kPost);
  options.scale_embeddings = true;
  export_to(make_model(options, 12, 10), two_vocabularies(), "out");
  const auto exported = read_exported(scratch_.file("out"));
  const std::vector<std::tuple<std::string, int, int64_t>> expected = {
      {"encoder/num_heads", 2, 4},
      {"decoder/num_heads", 2, 4},
      {"encoder/pre_norm", 1, 0},
      {"decoder/pre_norm", 1, 0},
      {"encoder/scale_embeddings", 1, 1},
      {"decoder/scale_embeddings", 1, 1},
      {"encoder/activation", 1, 0},
      {"decoder/activation", 1, 0},
      {"encoder/embeddings_merge", 1, 0},
      {"encoder/multi_query_attention", 1, 0},
      {"decoder/alignment_layer", 2, -1},
      {"decoder/alignment_heads", 2, 1},
      {"decoder/alibi", 1, 0},
      {"decoder/start_from_zero_embedding", 1, 0},
  };
  for (const auto& [name, type, value] : expected) {
    const auto& variable = exported.variable(name);
    EXPECT_TRUE(variable.shape.empty()) << name;
    EXPECT_EQ(variable.type, type) << name;
    EXPECT_EQ(variable.scalar(), value) << name;
  }
}

// CTranslate2's ActivationType numbers (Swish 2, exact GELU 3) and the split table as it is.
TEST_F(Ctranslate2ExportTest, MarianOptionsAreWrittenAsCtranslate2NamesThem) {
  for (const auto& [activation, number] : std::vector<std::pair<model::Activation, int64_t>>{
           {model::Activation::kSwish, 2}, {model::Activation::kGelu, 3}}) {
    auto options = one_layer(model::NormPosition::kPost);
    options.activation = activation;
    options.positions = model::PositionLayout::kSplit;
    const std::string out = "out" + std::to_string(number);
    export_to(make_model(options, 12, 10), two_vocabularies(), out);
    const auto exported = read_exported(scratch_.file(out));
    EXPECT_EQ(exported.variable("encoder/activation").scalar(), number);
    EXPECT_EQ(exported.variable("decoder/activation").scalar(), number);
    EXPECT_EQ(exported.variable("decoder/position_encodings/encodings").bytes,
              bytes_of(model::sinusoidal_positions(0, 8, options.d_model,
                                                   model::PositionLayout::kSplit, torch::kCPU)));
  }
}

TEST_F(Ctranslate2ExportTest, SharedAndTiedEmbeddingsAreStoredOnce) {
  auto options = one_layer(model::NormPosition::kPre);
  options.share_embeddings = true;
  options.tie_embeddings = true;
  const auto model = make_model(options, 12, 12);
  const auto shared = words("a b c d e f g h");
  const ExportReport report = export_to(model, {shared, shared}, "out");
  const auto exported = read_exported(scratch_.file("out"));
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"decoder/projection/weight", "decoder/embeddings/weight"},
      {"encoder/embeddings_0/weight", "decoder/embeddings/weight"},
      {"encoder/position_encodings/encodings", "decoder/position_encodings/encodings"}};
  EXPECT_EQ(exported.aliases, aliases);
  const auto params = model->named_parameters();
  EXPECT_EQ(exported.variable("decoder/embeddings/weight").bytes,
            bytes_of(params["source_embedding.weight"]));
  EXPECT_EQ(exported.variable("decoder/projection/bias").bytes, bytes_of(params["output_bias"]));
  EXPECT_EQ(report.model_bin.aliases, 3);
  EXPECT_EQ(report.files,
            (std::vector<std::string>{"model.bin", "config.json", "shared_vocabulary.json"}));
  EXPECT_FALSE(fs::exists(scratch_.file("out/source_vocabulary.json")));
}

// Marian's tokenisation ends source sentences with </s>: CTranslate2 is told to append it, and the
// SentencePiece models and vocabularies travel with the model.
TEST_F(Ctranslate2ExportTest, AMarianTokenisedRunAsksCtranslate2ForTheSourceEos) {
  text::TextOptions spm_options;
  spm_options.tokenizer = text::TokenizerKind::kSentencePiece;
  spm_options.vocab_size = 300;
  const auto subwords = text::SentencePieceTokenizer::train({"a b c", "d e f"}, spm_options, 3);
  std::string lines = "<PAD>\n<SOS>\n<EOS>\n<UNK>\n";
  for (int64_t id = subwords.size() - 1; id >= text::kNumSpecials; --id) {
    lines += subwords.pieces({id})[0] + "\n";
  }
  const auto marian = [&](text::MarianTokenizer::Side side) {
    std::istringstream in(lines);
    return std::make_shared<text::MarianTokenizer>(text::MarianTokenizer::from_parts(
        subwords.serialized(), text::Vocab::from_stream(in, "vocab"), side, "spm"));
  };
  const text::TokenizerPair tokenizers = {marian(text::MarianTokenizer::Side::kSource),
                                          marian(text::MarianTokenizer::Side::kTarget)};
  text::TextOptions text_options;
  text_options.tokenizer = text::TokenizerKind::kMarian;
  text_options.shared_vocab = true;
  auto options = one_layer(model::NormPosition::kPost);
  options.activation = model::Activation::kSwish;
  options.positions = model::PositionLayout::kSplit;
  const auto size = tokenizers.source->size();
  Ctranslate2Options export_options;
  export_options.max_positions = 8;
  const auto model = make_model(options, size, size);
  const ExportReport report =
      write_ctranslate2(*model, tokenizers, text_options, scratch_.file("out"), export_options);
  const auto config = nlohmann::json::parse(testing::read_file(scratch_.file("out/config.json")));
  EXPECT_EQ(config["add_source_eos"], true);
  // <PAD> and <SOS> copy Marian's pad row: their bias keeps CTranslate2 from choosing them.
  const auto exported = read_exported(scratch_.file("out"));
  const auto& bias = exported.variable("decoder/projection/bias");
  EXPECT_EQ(bias.f32(text::kPadId), -10000.0f);
  EXPECT_EQ(bias.f32(text::kSosId), -10000.0f);
  const at::Tensor trained = model->output_bias().detach();
  EXPECT_EQ(bias.f32(text::kEosId), trained[text::kEosId].item<float>());
  EXPECT_EQ(report.files,
            (std::vector<std::string>{"model.bin", "config.json", "shared_vocabulary.json",
                                      "marian.src.spm", "marian.src.vocab", "marian.tgt.spm",
                                      "marian.tgt.vocab"}));
}

TEST_F(Ctranslate2ExportTest, ConfigNamesNmtsSpecialTokensAndVocabulariesListEveryId) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  const ExportReport report = export_to(model, two_vocabularies(), "out/");
  EXPECT_EQ(report.out_dir, scratch_.file("out"));
  EXPECT_EQ(report.files,
            (std::vector<std::string>{"model.bin", "config.json", "source_vocabulary.json",
                                      "target_vocabulary.json"}));
  EXPECT_EQ(testing::read_file(scratch_.file("out/config.json")),
            "{\n"
            "  \"add_source_bos\": false,\n"
            "  \"add_source_eos\": false,\n"
            "  \"bos_token\": \"<SOS>\",\n"
            "  \"decoder_start_token\": \"<SOS>\",\n"
            "  \"eos_token\": \"<EOS>\",\n"
            "  \"layer_norm_epsilon\": 1e-05,\n"
            "  \"multi_query_attention\": false,\n"
            "  \"unk_token\": \"<UNK>\"\n"
            "}\n");
  const auto target =
      nlohmann::json::parse(testing::read_file(scratch_.file("out/target_vocabulary.json")));
  EXPECT_EQ(target,
            nlohmann::json({"<PAD>", "<SOS>", "<EOS>", "<UNK>", "x", "y", "z", "w", "v", "u"}));
  EXPECT_EQ(
      nlohmann::json::parse(testing::read_file(scratch_.file("out/source_vocabulary.json"))).size(),
      12u);
  EXPECT_FALSE(fs::exists(scratch_.file("out.tmp")));
  int64_t parameters = 0;
  for (const auto& parameter : model->parameters()) parameters += parameter.numel();
  EXPECT_EQ(report.parameters, parameters);
}

TEST_F(Ctranslate2ExportTest, ANonEmptyDirectoryIsReplacedOnlyWithForceAndOnlyIfItIsAnExport) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  export_to(model, two_vocabularies(), "out");
  const std::string out = scratch_.file("out");
  try {
    export_to(model, two_vocabularies(), "out");
    FAIL() << "a non-empty directory must not be overwritten without --force";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--out: " + out + " is not empty; pass --force to replace the model exported there");
  }
  // --force replaces the whole export: a shared vocabulary leaves no stale source/target files.
  auto shared_options = one_layer(model::NormPosition::kPost);
  const auto shared = words("a b c d e f g h");
  Ctranslate2Options force;
  force.is_forced = true;
  export_to(make_model(shared_options, 12, 12), {shared, shared}, "out", force);
  EXPECT_TRUE(fs::exists(out + "/shared_vocabulary.json"));
  EXPECT_FALSE(fs::exists(out + "/source_vocabulary.json"));
  EXPECT_FALSE(fs::exists(out + ".tmp"));

  testing::ScratchDir other;
  other.write("notes.txt", "mine");
  try {
    write_ctranslate2(*model, two_vocabularies(), text::TextOptions{}, other.path(), force);
    FAIL() << "--force must not delete files an export did not write";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--out: " + other.path() +
                  " holds notes.txt, which nmt export does not write; --force replaces only an "
                  "earlier export: choose another directory");
  }
  EXPECT_EQ(testing::read_file(other.file("notes.txt")), "mine");
  const std::string file = scratch_.write("plain", "x");
  EXPECT_THROW(export_to(model, two_vocabularies(), "plain"), ConfigError);
  EXPECT_EQ(testing::read_file(file), "x");
}

TEST_F(Ctranslate2ExportTest, RefusesNonFiniteWeightsAndNoPositions) {
  const auto model = make_model(one_layer(model::NormPosition::kPost), 12, 10);
  Ctranslate2Options none;
  none.max_positions = 0;
  try {
    write_ctranslate2(*model, two_vocabularies(), text::TextOptions{}, scratch_.file("a"), none);
    FAIL() << "zero positions must be refused";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "--max-positions: expected a positive integer, got 0");
  }
  {
    torch::NoGradGuard no_grad;
    model->named_parameters()["encoder.0.norm1.weight"][3].fill_(
        std::numeric_limits<float>::quiet_NaN());
  }
  try {
    export_to(model, two_vocabularies(), "b");
    FAIL() << "NaN weights must be refused";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot export encoder.0.norm1.weight: it holds NaN or infinite values (a "
                 "diverged training?)");
  }
  EXPECT_FALSE(fs::exists(scratch_.file("b")));
  EXPECT_FALSE(fs::exists(scratch_.file("b.tmp")));
}

}  // namespace
}  // namespace nmt::exporter
