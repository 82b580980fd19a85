// CPU/CUDA agreement. Every test skips where no CUDA device is usable (CI, the CPU machine); they
// run on the GPU machine (scripts/gpu-bench.sh).
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "nmt/crash_report.h"
#include "nmt/decode/translator.h"
#include "nmt/text/vocab.h"
#include "nmt/text/word_tokenizer.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/trainer.h"
#include "test_utils.h"
#include "torch_test_utils.h"

namespace nmt {
namespace {

#define SKIP_WITHOUT_CUDA() \
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device"

const torch::Device kCuda(torch::kCUDA, 0);

// A crash on the GPU machine should say where (nothing to install where the tests skip).
[[maybe_unused]] const bool kHasCrashReport = [] {
  install_crash_report();
  return true;
}();

std::vector<data::EncodedPair> copy_pairs(int count) {
  std::vector<data::EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    data::EncodedPair pair;
    for (int t = 0; t < 2 + i % 4; ++t) pair.source.push_back(4 + (i * 7 + t * 3) % 8);
    pair.target = pair.source;
    pairs.push_back(pair);
  }
  return pairs;
}

model::Transformer copy_of(model::Transformer& model, const torch::Device& device) {
  auto copy = testing::tiny_model(model->options().norm, model->source_vocab(), 99);
  torch::NoGradGuard no_grad;
  auto theirs = model->named_parameters();
  for (auto& item : copy->named_parameters()) item.value().copy_(theirs[item.key()]);
  copy->to(device);
  return copy;
}

TEST(CudaTest, ForwardPassAgreesWithTheCpu) {
  SKIP_WITHOUT_CUDA();
  auto cpu = testing::tiny_model(model::NormPosition::kPre, 12, 1);
  auto gpu = copy_of(cpu, kCuda);
  const auto source = torch::randint(4, 12, {3, 6}, torch::kLong);
  const auto target = torch::randint(4, 12, {3, 5}, torch::kLong);
  const auto expected = cpu->forward(source, target);
  const auto actual = gpu->forward(source.to(kCuda), target.to(kCuda)).cpu();
  EXPECT_TRUE(testing::all_close(actual, expected, 1e-4));
}

TEST(CudaTest, TrainingStepsAgreeWithTheCpu) {
  SKIP_WITHOUT_CUDA();
  auto cpu = testing::tiny_model(model::NormPosition::kPost, 12, 2);
  auto gpu = copy_of(cpu, kCuda);
  train::TrainOptions options;
  options.batch_size = 8;
  options.precision = train::Precision::kFp32;
  testing::ScratchDir dir;
  train::Trainer cpu_trainer(cpu, {options, RunDir(dir.path()), "{}", torch::kCPU, false, nullptr},
                             copy_pairs(32), {});
  train::Trainer gpu_trainer(gpu, {options, RunDir(dir.path()), "{}", kCuda, false, nullptr},
                             copy_pairs(32), {});
  const auto plan = cpu_trainer.epoch_plan(0);
  // Losses after each update depend on every earlier update, so they check the optimiser too.
  for (int step = 0; step < 4; ++step) {
    const auto batch = data::collate(copy_pairs(32), plan[static_cast<std::size_t>(step)]);
    const double cpu_loss = cpu_trainer.train_step(batch).loss.sum.item<double>();
    const double gpu_loss = gpu_trainer.train_step(batch).loss.sum.item<double>();
    EXPECT_NEAR(gpu_loss, cpu_loss, 1e-3 * std::abs(cpu_loss)) << "step " << step;
  }
  // Adam moves every weight by up to lr per step whatever the gradient's size, so weights whose
  // gradient is rounding noise (the key biases: softmax ignores them) may differ by that much.
  auto gpu_parameters = gpu->named_parameters();
  for (const auto& item : cpu->named_parameters()) {
    EXPECT_TRUE(
        torch::allclose(gpu_parameters[item.key()].cpu(), item.value(), 1e-4, 4 * options.lr))
        << item.key();
  }
}

TEST(CudaTest, Bf16AutocastTrainsWithALossCloseToFp32) {
  SKIP_WITHOUT_CUDA();
  auto fp32 = testing::tiny_model(model::NormPosition::kPre, 12, 3);
  auto bf16 = copy_of(fp32, kCuda);
  fp32->to(kCuda);
  train::TrainOptions options;
  options.batch_size = 16;
  testing::ScratchDir dir;
  options.precision = train::Precision::kFp32;
  train::Trainer full(fp32, {options, RunDir(dir.path()), "{}", kCuda, false, nullptr},
                      copy_pairs(32), {});
  options.precision = train::Precision::kBf16;
  train::Trainer half(bf16, {options, RunDir(dir.path()), "{}", kCuda, false, nullptr},
                      copy_pairs(32), {});
  const auto batch = data::collate(copy_pairs(32), full.epoch_plan(0)[0]);
  const double a = full.train_step(batch).loss.sum.item<double>();
  const double b = half.train_step(batch).loss.sum.item<double>();
  EXPECT_TRUE(std::isfinite(b));
  EXPECT_NEAR(b, a, 0.05 * std::abs(a));
}

TEST(CudaTest, ACheckpointSavedOnTheGpuLoadsOnTheCpu) {
  SKIP_WITHOUT_CUDA();
  auto cpu = testing::tiny_model(model::NormPosition::kPre, 12, 4);
  auto gpu = copy_of(cpu, kCuda);
  testing::ScratchDir dir;
  train::save_checkpoint(dir.file("gpu.pt"), gpu, nullptr, {}, "{}");
  auto loaded = testing::tiny_model(model::NormPosition::kPre, 12, 5);
  train::load_checkpoint(dir.file("gpu.pt"), loaded, nullptr, torch::kCPU, false);
  auto expected = cpu->named_parameters();
  for (const auto& item : loaded->named_parameters()) {
    EXPECT_TRUE(item.value().is_cpu());
    EXPECT_TRUE(torch::equal(item.value(), expected[item.key()])) << item.key();
  }
}

TEST(CudaTest, BatchedGreedyAndBeamDecodingMatchTheCpu) {
  SKIP_WITHOUT_CUDA();
  auto cpu = testing::tiny_model(model::NormPosition::kPost, 12, 6);
  auto gpu = copy_of(cpu, kCuda);
  auto tokenizer =
      std::make_shared<text::WordTokenizer>(text::Vocab::build({"a b c d e f g h"}, 1));
  const text::TokenizerPair tokenizers{tokenizer, tokenizer};
  decode::Translator on_cpu(cpu, tokenizers, text::CleanMode::kNotebook, torch::kCPU);
  decode::Translator on_gpu(gpu, tokenizers, text::CleanMode::kNotebook, kCuda);
  const std::vector<std::string> inputs = {"a b c", "d e f g h", "h", "b b a"};
  for (const auto strategy : {decode::Strategy::kGreedy, decode::Strategy::kBeam}) {
    decode::SearchOptions options;
    options.strategy = strategy;
    options.beam_size = 3;
    const auto a = on_cpu.translate(inputs, options);
    const auto b = on_gpu.translate(inputs, options);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(a.results[i][0].ids, b.results[i][0].ids) << inputs[i];
  }
}

}  // namespace
}  // namespace nmt
