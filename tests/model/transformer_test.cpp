#include "nmt/model/transformer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nmt/text/vocab.h"
#include "torch_test_utils.h"

namespace nmt::model {
namespace {

using testing::all_close;
using testing::tiny_model;

torch::Tensor ids(std::vector<int64_t> values, int64_t rows = 1) {
  return torch::tensor(values, torch::kLong).view({rows, -1});
}

TEST(SinusoidalPositionsTest, MatchTheNotebookFormula) {
  const auto table = sinusoidal_positions(0, 5, 8, PositionLayout::kInterleaved, torch::kCPU);
  ASSERT_EQ(table.sizes(), (std::vector<int64_t>{5, 8}));
  for (int64_t pos = 0; pos < 5; ++pos) {
    for (int64_t i = 0; i < 4; ++i) {
      const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * i / 8.0);
      EXPECT_NEAR(table[pos][2 * i].item<double>(), std::sin(angle), 1e-5);
      EXPECT_NEAR(table[pos][2 * i + 1].item<double>(), std::cos(angle), 1e-5);
    }
  }
  EXPECT_TRUE(all_close(sinusoidal_positions(3, 2, 8, PositionLayout::kInterleaved, torch::kCPU),
                        table.narrow(0, 3, 2)));
}

// Marian's (and transformers' MarianSinusoidalPositionalEmbedding's) table: the sines of every
// angle in the first half of the columns, their cosines in the second, position 0 first.
TEST(SinusoidalPositionsTest, SplitLayoutPutsSinesFirstAndCosinesSecond) {
  const auto table = sinusoidal_positions(0, 5, 8, PositionLayout::kSplit, torch::kCPU);
  ASSERT_EQ(table.sizes(), (std::vector<int64_t>{5, 8}));
  for (int64_t pos = 0; pos < 5; ++pos) {
    for (int64_t i = 0; i < 4; ++i) {
      const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * i / 8.0);
      EXPECT_NEAR(table[pos][i].item<double>(), std::sin(angle), 1e-5);
      EXPECT_NEAR(table[pos][4 + i].item<double>(), std::cos(angle), 1e-5);
    }
  }
  // Golden values at position 3: sin(3), sin(0.3), then cos(3).
  EXPECT_NEAR(table[3][0].item<double>(), 0.14112000805986721, 1e-6);
  EXPECT_NEAR(table[3][1].item<double>(), 0.29552020666133955, 1e-6);
  EXPECT_NEAR(table[3][4].item<double>(), -0.98999249660044542, 1e-6);
  EXPECT_TRUE(all_close(sinusoidal_positions(3, 2, 8, PositionLayout::kSplit, torch::kCPU),
                        table.narrow(0, 3, 2)));
}

TEST(ActivationTest, GivesGoldenValues) {
  const torch::Tensor x = torch::tensor({-2.0f, -0.5f, 0.0f, 1.0f, 3.0f});
  // ReLU; GELU x * Phi(x) with the exact normal CDF; swish x / (1 + exp(-x)).
  const std::vector<std::pair<Activation, std::vector<double>>> expected = {
      {Activation::kRelu, {0.0, 0.0, 0.0, 1.0, 3.0}},
      {Activation::kGelu,
       {-0.04550026389635842, -0.15426876936299344, 0.0, 0.8413447460685429, 2.99595030590511}},
      {Activation::kSwish,
       {-0.23840584404423515, -0.1887703343990727, 0.0, 0.7310585786300049, 2.8577223804672998}},
  };
  for (const auto& [activation, values] : expected) {
    const torch::Tensor y = activate(activation, x);
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_NEAR(y[static_cast<int64_t>(i)].item<double>(), values[i], 1e-6)
          << static_cast<int>(activation) << " at " << i;
    }
  }
}

TEST(TransformerTest, ForwardGivesLogitsPerTargetPosition) {
  auto model = tiny_model();
  const auto logits = model->forward(ids({4, 5, 6, 0, 7, 8, 0, 0}, 2), ids({1, 4, 5, 1, 6, 0}, 2));
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{2, 3, 12}));
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
}

TEST(TransformerTest, AttentionAndActivationDropoutActOnlyWhileTraining) {
  TransformerOptions options = testing::tiny_options(NormPosition::kPost);
  options.dropout = 0.0;
  torch::manual_seed(7);
  Transformer plain(options, 12, 12);
  options.attention_dropout = 0.5;
  options.activation_dropout = 0.5;
  torch::manual_seed(7);
  Transformer dropping(options, 12, 12);
  const auto source = ids({4, 5, 6, 7}, 1);
  const auto target = ids({1, 4, 5}, 1);
  plain->eval();
  dropping->eval();
  EXPECT_TRUE(all_close(dropping->forward(source, target), plain->forward(source, target)));
  plain->train();
  dropping->train();
  const auto reference = plain->forward(source, target);
  EXPECT_TRUE(all_close(plain->forward(source, target), reference));
  EXPECT_FALSE(all_close(dropping->forward(source, target), reference, 1e-3));
}

TEST(TransformerTest, EncoderAndDecoderDepthsAreSetApartOrBothByLayers) {
  TransformerOptions options = testing::tiny_options();
  options.encoder_layers = 3;
  options.decoder_layers = 1;
  Transformer model(options, 12, 12);
  const auto modules = model->named_modules();
  EXPECT_TRUE(modules.contains("encoder.2"));
  EXPECT_FALSE(modules.contains("encoder.3"));
  EXPECT_TRUE(modules.contains("decoder.0"));
  EXPECT_FALSE(modules.contains("decoder.1"));
  AttentionMaps maps;
  const auto source = ids({4, 5, 6});
  const auto memory = model->encode(source, &maps);
  (void)model->decode(ids({1, 4}), memory, padding_mask(source), &maps);
  EXPECT_EQ(maps.encoder_self.size(), 3u);
  EXPECT_EQ(maps.decoder_self.size(), 1u);
  EXPECT_EQ(maps.cross.size(), 1u);
  options.encoder_layers = 0;  // both follow `layers`
  options.decoder_layers = 0;
  EXPECT_EQ(options.encoder_depth(), 2);
  EXPECT_EQ(options.decoder_depth(), 2);
}

TEST(TransformerTest, ParameterCountFromOptionsMatchesTheBuiltModel) {
  for (const bool pre : {false, true}) {
    for (const bool tie : {false, true}) {
      for (const bool share : {false, true}) {
        TransformerOptions options =
            testing::tiny_options(pre ? NormPosition::kPre : NormPosition::kPost);
        options.tie_embeddings = tie;
        options.share_embeddings = share;
        // Deep encoder, shallow decoder whenever the embeddings are shared.
        options.encoder_layers = share ? 3 : 0;
        options.decoder_layers = share ? 1 : 0;
        const int64_t source_vocab = 12;
        const int64_t target_vocab = share ? 12 : 17;
        Transformer model(options, source_vocab, target_vocab);
        int64_t built = 0;
        for (const auto& parameter : model->parameters()) built += parameter.numel();
        EXPECT_EQ(options.parameter_count(source_vocab, target_vocab), built)
            << "pre " << pre << " tie " << tie << " share " << share;
      }
    }
  }
}

TEST(TransformerTest, AFutureTokenNeverInfluencesAnEarlierOutput) {
  for (const auto norm : {NormPosition::kPost, NormPosition::kPre}) {
    auto model = tiny_model(norm);
    const auto source = ids({4, 5, 6});
    const auto a = model->forward(source, ids({1, 7, 8, 9}));
    const auto b = model->forward(source, ids({1, 7, 10, 11}));
    EXPECT_TRUE(all_close(a.narrow(1, 0, 2), b.narrow(1, 0, 2)));
    EXPECT_FALSE(all_close(a.narrow(1, 2, 2), b.narrow(1, 2, 2)));
  }
}

TEST(TransformerTest, SourcePaddingDoesNotChangeTheOutput) {
  auto model = tiny_model();
  const auto target = ids({1, 7, 8});
  const auto plain = model->forward(ids({4, 5, 6}), target);
  const auto padded = model->forward(ids({4, 5, 6, text::kPadId, text::kPadId}), target);
  EXPECT_TRUE(all_close(plain, padded));
}

TEST(TransformerTest, IncrementalDecodingMatchesFullRecomputation) {
  for (const auto norm : {NormPosition::kPost, NormPosition::kPre}) {
    auto model = tiny_model(norm);
    const auto source = ids({4, 5, 6, 0, 7, 8, 9, 10}, 2);
    const auto target = ids({1, 4, 5, 6, 1, 7, 8, 9}, 2);
    const auto full = model->forward(source, target);
    const auto memory = model->encode(source);
    DecoderState state = model->start(memory, padding_mask(source));
    for (int64_t t = 0; t < 4; ++t) {
      const auto logits = model->step(target.select(1, t), state);
      EXPECT_TRUE(all_close(logits, full.select(1, t), 1e-4)) << "position " << t;
    }
  }
}

TEST(TransformerTest, KeepRowsReordersTheCache) {
  auto model = tiny_model();
  const auto source = ids({4, 5, 6, 7, 8, 9}, 2);
  DecoderState state = model->start(model->encode(source), padding_mask(source));
  model->step(ids({1, 1}, 2).view({2}), state);
  DecoderState swapped = state;
  TransformerImpl::keep_rows(swapped, torch::tensor({1, 0}, torch::kLong));
  const auto next = ids({4, 5}, 2).view({2});
  const auto original = model->step(next, state);
  const auto reordered = model->step(next.flip(0), swapped);
  EXPECT_TRUE(all_close(original.flip(0), reordered, 1e-5));
}

TEST(TransformerTest, InputsLongerThanAnyTableDoNotCrash) {
  auto model = tiny_model();
  const auto source = torch::randint(4, 12, {1, 700}, torch::kLong);
  const auto logits = model->forward(source, torch::randint(4, 12, {1, 600}, torch::kLong));
  EXPECT_EQ(logits.size(1), 600);
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
}

TEST(TransformerTest, TiedAndSharedEmbeddingsReuseOneMatrix) {
  auto options = testing::tiny_options();
  const int64_t untied = [&] {
    int64_t n = 0;
    for (const auto& p : Transformer(options, 12, 12)->parameters()) n += p.numel();
    return n;
  }();
  options.tie_embeddings = true;
  options.share_embeddings = true;
  Transformer model(options, 12, 12);
  int64_t tied = 0;
  for (const auto& p : model->parameters()) tied += p.numel();
  // Untied minus tied = the target embedding (12 x 16) and the output weight (12 x 16).
  EXPECT_EQ(untied - tied, 2 * 12 * 16);
  const auto logits = model->forward(ids({4, 5}), ids({1, 6}));
  logits.sum().backward();
  const auto named = model->named_parameters();
  EXPECT_TRUE(named["source_embedding.weight"].grad().defined());
  EXPECT_EQ(named.find("target_embedding.weight"), nullptr);
}

TEST(TransformerTest, AttentionMapsCoverEveryLayerWithTheRightShapes) {
  auto model = tiny_model(NormPosition::kPre);
  AttentionMaps maps;
  const auto source = ids({4, 5, 6});
  const auto memory = model->encode(source, &maps);
  model->decode(ids({1, 7}), memory, padding_mask(source), &maps);
  ASSERT_EQ(maps.encoder_self.size(), 2u);
  ASSERT_EQ(maps.cross.size(), 2u);
  EXPECT_EQ(maps.encoder_self[0].sizes(), (std::vector<int64_t>{1, 4, 3, 3}));
  EXPECT_EQ(maps.decoder_self[1].sizes(), (std::vector<int64_t>{1, 4, 2, 2}));
  EXPECT_EQ(maps.cross[1].sizes(), (std::vector<int64_t>{1, 4, 2, 3}));
  EXPECT_TRUE(all_close(maps.cross[0].sum(-1), torch::ones({1, 4, 2})));
}

TEST(TransformerTest, PaddingEmbeddingRowStartsAtZero) {
  auto model = tiny_model();
  EXPECT_EQ(
      model->named_parameters()["source_embedding.weight"][text::kPadId].abs().sum().item<float>(),
      0.0f);
}

}  // namespace
}  // namespace nmt::model
