// The CPU decoder computes what TransformerImpl::step computes: the same logits step after step,
// through reorderings and shrinkings of the rows (as beam search does), for every architecture
// option and number format.
#include "nmt/model/cpu_decoder.h"

#include <c10/core/InferenceMode.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "nmt/model/linear.h"
#include "nmt/text/vocab.h"
#include "torch_test_utils.h"

namespace nmt::model {
namespace {

struct Variant {
  std::string name;
  NormPosition norm = NormPosition::kPre;
  bool tie = false;
  bool share = false;
  bool scale = false;
  WeightForm form = WeightForm::kFp32;
  double tolerance = 1e-5;
  Activation activation = Activation::kRelu;
  PositionLayout positions = PositionLayout::kInterleaved;
  int64_t encoder_layers = 0;  // 0: tiny_options' layers
  int64_t decoder_layers = 0;
};

Transformer variant_model(const Variant& variant) {
  TransformerOptions options = testing::tiny_options(variant.norm);
  options.tie_embeddings = variant.tie;
  options.share_embeddings = variant.share;
  options.scale_embeddings = variant.scale;
  options.activation = variant.activation;
  options.positions = variant.positions;
  options.encoder_layers = variant.encoder_layers;
  options.decoder_layers = variant.decoder_layers;
  torch::manual_seed(11);
  Transformer model(options, 12, 12);
  model->eval();
  model->set_inference_form(variant.form);
  return model;
}

// Source [3, 5] with padding, and the rows kept after each step: reordered with a repeat (beams),
// then shrunk (finished rows dropped).
const std::vector<std::vector<int64_t>> kKeptRows = {{0, 1, 2}, {2, 0, 0, 1}, {3, 1}, {1, 0}, {0}};

class CpuDecoderTest : public ::testing::TestWithParam<Variant> {};

TEST_P(CpuDecoderTest, GivesTheLogitsOfTheLibTorchStepThroughReorderedRows) {
  const Variant& variant = GetParam();
  if (is_int8(variant.form) && !has_int8_inference()) GTEST_SKIP() << "no int8 kernel";
  c10::InferenceMode inference;
  Transformer model = variant_model(variant);
  const torch::Tensor source =
      torch::tensor({4, 5, 6, 7, 8, 9, 4, 0, 0, 0, 10, 11, 5, 6, 0}, torch::kLong).view({3, 5});
  const torch::Tensor memory = model->encode(source);
  DecoderState reference = model->start(memory, padding_mask(source));
  const CpuDecoder decoder(*model);
  CpuDecoderState state;
  decoder.start(state, memory, {5, 2, 4});
  torch::Tensor last = torch::full({3}, text::kSosId, torch::kLong);
  for (std::size_t step = 0; step < kKeptRows.size(); ++step) {
    const torch::Tensor expected = model->step(last, reference).to(torch::kFloat);
    const torch::Tensor actual = decoder.step(state, last);
    ASSERT_EQ(actual.sizes(), expected.sizes()) << "step " << step;
    EXPECT_TRUE(testing::all_close(actual, expected, variant.tolerance))
        << variant.name << ", step " << step << ": largest difference "
        << (actual - expected).abs().max().item<double>();
    const torch::Tensor rows = torch::tensor(kKeptRows[step], torch::kLong);
    TransformerImpl::keep_rows(reference, rows);
    state.keep_rows(rows);
    EXPECT_EQ(state.rows(), rows.numel());
    last = expected.argmax(-1).index_select(0, rows);
  }
}

TEST_P(CpuDecoderTest, GrowsItsCachesPastTheirFirstCapacity) {
  const Variant& variant = GetParam();
  if (is_int8(variant.form) && !has_int8_inference()) GTEST_SKIP() << "no int8 kernel";
  c10::InferenceMode inference;
  Transformer model = variant_model(variant);
  const torch::Tensor source = torch::tensor({4, 5, 6, 7}, torch::kLong).view({2, 2});
  const torch::Tensor memory = model->encode(source);
  DecoderState reference = model->start(memory, padding_mask(source));
  const CpuDecoder decoder(*model);
  CpuDecoderState state;
  decoder.start(state, memory, {2, 2});
  torch::Tensor last = torch::full({2}, text::kSosId, torch::kLong);
  for (int step = 0; step < 40; ++step) {  // the first capacity is 16 positions
    const torch::Tensor expected = model->step(last, reference).to(torch::kFloat);
    const torch::Tensor actual = decoder.step(state, last);
    ASSERT_TRUE(testing::all_close(actual, expected, variant.tolerance))
        << variant.name << ", step " << step;
    last = expected.argmax(-1);
  }
}

TEST_P(CpuDecoderTest, AStateStartedAgainDecodesAsAFreshOne) {
  const Variant& variant = GetParam();
  if (is_int8(variant.form) && !has_int8_inference()) GTEST_SKIP() << "no int8 kernel";
  c10::InferenceMode inference;
  Transformer model = variant_model(variant);
  const CpuDecoder decoder(*model);
  // A first batch of 3 sentences, 20 steps past the first capacity, with reordered rows.
  const torch::Tensor first_source =
      torch::tensor({4, 5, 6, 7, 8, 9, 4, 0, 0, 0, 10, 11, 5, 6, 0}, torch::kLong).view({3, 5});
  CpuDecoderState reused;
  decoder.start(reused, model->encode(first_source), {5, 2, 4});
  reused.keep_rows(torch::tensor({2, 0, 1, 1}, torch::kLong));
  for (int step = 0; step < 20; ++step) {
    (void)decoder.step(reused, torch::full({4}, 6, torch::kLong));
  }
  // Then a batch of 2: the same logits as a state that decoded nothing before.
  const torch::Tensor source = torch::tensor({7, 8, 9, 5, 0, 0}, torch::kLong).view({2, 3});
  const torch::Tensor memory = model->encode(source);
  CpuDecoderState fresh;
  decoder.start(fresh, memory, {3, 1});
  decoder.start(reused, memory, {3, 1});
  torch::Tensor last = torch::full({2}, text::kSosId, torch::kLong);
  for (int step = 0; step < 5; ++step) {
    const torch::Tensor expected = decoder.step(fresh, last).clone();
    const torch::Tensor actual = decoder.step(reused, last);
    ASSERT_TRUE(actual.equal(expected)) << variant.name << ", step " << step;
    last = expected.argmax(-1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Architectures,
    CpuDecoderTest,
    ::testing::Values(
        Variant{"post_norm", NormPosition::kPost},
        Variant{"pre_norm", NormPosition::kPre},
        Variant{"tied", NormPosition::kPre, true},
        Variant{"tied_shared_scaled", NormPosition::kPre, true, true, true},
        Variant{"post_norm_scaled", NormPosition::kPost, false, false, true},
        // The products are the same integer GEMM as the LibTorch step's; the loops
        // around them sum in another order.
        Variant{"int8", NormPosition::kPre, true, true, true, WeightForm::kInt8, 1e-4},
        Variant{"int8w7", NormPosition::kPre, true, true, true, WeightForm::kInt8W7, 1e-4},
        Variant{"bf16", NormPosition::kPost, false, false, false, WeightForm::kBf16, 1e-2},
        Variant{"gelu", NormPosition::kPre, false, false, false, WeightForm::kFp32, 1e-5,
                Activation::kGelu},
        // Marian's (OPUS-MT's) architecture, in every number format.
        Variant{"marian", NormPosition::kPost, true, true, true, WeightForm::kFp32, 1e-5,
                Activation::kSwish, PositionLayout::kSplit},
        Variant{"marian_int8", NormPosition::kPost, true, true, true, WeightForm::kInt8, 1e-4,
                Activation::kSwish, PositionLayout::kSplit},
        Variant{"marian_bf16", NormPosition::kPost, true, true, true, WeightForm::kBf16, 1e-2,
                Activation::kSwish, PositionLayout::kSplit},
        // A distillation student's shape: a deep encoder and a one-layer decoder.
        Variant{"deep_encoder_shallow_decoder", NormPosition::kPre, true, true, true,
                WeightForm::kFp32, 1e-5, Activation::kRelu, PositionLayout::kInterleaved, 3, 1},
        Variant{"deep_encoder_shallow_decoder_int8", NormPosition::kPre, true, true, true,
                WeightForm::kInt8, 1e-4, Activation::kRelu, PositionLayout::kInterleaved, 3, 1}),
    [](const ::testing::TestParamInfo<Variant>& info) { return info.param.name; });

TEST(CpuDecoderInputTest, RefusesAStepWithTheWrongNumberOfIds) {
  c10::InferenceMode inference;
  Transformer model = variant_model(Variant{"pre_norm"});
  const CpuDecoder decoder(*model);
  const torch::Tensor source = torch::tensor({4, 5}, torch::kLong).view({1, 2});
  CpuDecoderState state;
  decoder.start(state, model->encode(source), {2});
  try {
    (void)decoder.step(state, torch::full({2}, text::kSosId, torch::kLong));
    FAIL() << "two ids for one row were accepted";
  } catch (const c10::Error& error) {
    EXPECT_NE(std::string(error.what()).find("2 ids for 1 rows"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace nmt::model
