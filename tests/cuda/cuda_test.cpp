// CPU/CUDA agreement. Every test skips where no CUDA device is usable (CI, the CPU machine); they
// run on the GPU machine (scripts/gpu-bench.sh).
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <map>
#include <string>

#include "nmt/crash_report.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/run/training.h"
#include "nmt/text/vocab.h"
#include "nmt/text/word_tokenizer.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/update_step.h"
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

data::EncodedCorpus copy_pairs(int count) {
  std::vector<data::EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    data::EncodedPair pair;
    for (int t = 0; t < 2 + i % 4; ++t) pair.source.push_back(4 + (i * 7 + t * 3) % 8);
    pair.target = pair.source;
    pairs.push_back(pair);
  }
  return data::EncodedCorpus(pairs);
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

// Rows of a parameter whose gradient is rounding noise: the keys' biases (a bias added to every key
// of a query shifts all its scores equally, which softmax ignores). Adam turns noise into full-size
// steps of either sign, so the CPU and the GPU may move them differently.
bool is_key_bias(const std::string& name) {
  return name.find("self_attention.in_proj.bias") != std::string::npos ||
         name.find("cross_attention.kv_proj.bias") != std::string::npos;
}

TEST(CudaTest, TrainingStepsAgreeWithTheCpu) {
  SKIP_WITHOUT_CUDA();
  auto cpu = testing::tiny_model(model::NormPosition::kPost, 12, 2);
  auto gpu = copy_of(cpu, kCuda);
  std::map<std::string, torch::Tensor> initial;
  for (const auto& item : cpu->named_parameters()) initial[item.key()] = item.value().clone();
  train::TrainOptions options;
  options.batch_size = 8;
  options.precision = train::Precision::kFp32;
  train::UpdateStep cpu_step(cpu, options, torch::kCPU, nullptr);
  train::UpdateStep gpu_step(gpu, options, kCuda, nullptr);
  const auto plan = train::plan_epoch(copy_pairs(32), options, 0);
  // Losses after each update depend on every earlier update, so they check the optimiser too.
  for (int step = 0; step < 4; ++step) {
    const auto batch = data::collate(copy_pairs(32), plan.batch(static_cast<std::size_t>(step)));
    const double cpu_loss = cpu_step.run(batch).loss.sum.item<double>();
    const double gpu_loss = gpu_step.run(batch).loss.sum.item<double>();
    EXPECT_NEAR(gpu_loss, cpu_loss, 1e-3 * std::abs(cpu_loss)) << "step " << step;
  }
  // Each of the 4 Adam updates moves a weight by up to about lr: the weights must have moved, and
  // the GPU's must be within half an update of the CPU's, so that a missed or doubled update
  // cannot pass.
  auto gpu_parameters = gpu->named_parameters();
  double moved = 0.0;
  int64_t count = 0;
  for (const auto& item : cpu->named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor cpu_value = item.value().detach();
    torch::Tensor gpu_value = gpu_parameters[name].detach().cpu();
    torch::Tensor start = initial[name];
    if (is_key_bias(name)) {
      const int64_t d = cpu->options().d_model;
      const int64_t first = name.find("self_attention") != std::string::npos ? d : 0;
      const auto keep = torch::ones_like(cpu_value, torch::kBool)
                            .index_fill_(0, torch::arange(first, first + d), false);
      cpu_value = cpu_value.masked_select(keep);
      gpu_value = gpu_value.masked_select(keep);
      start = start.masked_select(keep);
    }
    EXPECT_TRUE(torch::allclose(gpu_value, cpu_value, 1e-4, options.lr / 2)) << name;
    moved += (cpu_value - start).abs().sum().item<double>();
    count += cpu_value.numel();
  }
  EXPECT_GT(moved / static_cast<double>(count), options.lr / 4) << "the updates moved the weights";
}

TEST(CudaTest, Bf16AutocastTrainsWithALossCloseToFp32) {
  SKIP_WITHOUT_CUDA();
  auto fp32 = testing::tiny_model(model::NormPosition::kPre, 12, 3);
  auto bf16 = copy_of(fp32, kCuda);
  fp32->to(kCuda);
  train::TrainOptions options;
  options.batch_size = 16;
  options.precision = train::Precision::kFp32;
  train::UpdateStep full(fp32, options, kCuda, nullptr);
  options.precision = train::Precision::kBf16;
  train::UpdateStep half(bf16, options, kCuda, nullptr);
  const auto batch =
      data::collate(copy_pairs(32), train::plan_epoch(copy_pairs(32), options, 0).batch(0));
  const double a = full.run(batch).loss.sum.item<double>();
  const double b = half.run(batch).loss.sum.item<double>();
  EXPECT_TRUE(std::isfinite(b));
  EXPECT_NEAR(b, a, 0.02 * std::abs(a));
}

// A rank makes its own GPU the current one, so that unqualified CUDA calls (streams,
// synchronisations) go to it rather than to GPU 0.
TEST(CudaTest, EachRankMakesItsOwnGpuCurrent) {
  SKIP_WITHOUT_CUDA();
  const auto* guard = c10::impl::getDeviceGuardImpl(c10::kCUDA);
  const auto devices = static_cast<c10::DeviceIndex>(torch::cuda::device_count());
  for (c10::DeviceIndex index = devices - 1; index >= 0; --index) {
    make_current_device(torch::Device(torch::kCUDA, index));
    EXPECT_EQ(guard->getDevice(), torch::Device(torch::kCUDA, index));
  }
}

// More local ranks than GPUs: a message naming the key and what to do, not CUDA's "invalid device
// ordinal" from the rank without a GPU.
TEST(CudaTest, ARankWithoutAGpuOfItsOwnIsAConfigurationError) {
  SKIP_WITHOUT_CUDA();
  const auto gpus = static_cast<int>(torch::cuda::device_count());
  train::RankPlacement placement;
  placement.rank = gpus;
  placement.world_size = gpus + 1;
  placement.local_rank = gpus;
  placement.local_world_size = gpus + 1;
  Config config;
  config.train.device = "cuda";
  EXPECT_EQ(run::rank_device(config, {}), torch::Device(torch::kCUDA, 0));
  try {
    run::rank_device(config, placement);
    ADD_FAILURE() << "rank " << gpus << " was given a GPU on a machine with " << gpus;
  } catch (const ConfigError& error) {
    const std::string plural = gpus == 1 ? "" : "s";
    EXPECT_EQ(std::string(error.what()),
              "train.device: \"cuda\" puts each rank on a GPU of its own, but rank " +
                  std::to_string(gpus) + " of " + std::to_string(gpus + 1) + " is number " +
                  std::to_string(gpus + 1) + " of the " + std::to_string(gpus + 1) +
                  " on a machine with " + std::to_string(gpus) + " CUDA device" + plural +
                  "; start at most " + std::to_string(gpus) + " rank" + plural +
                  " per machine, or train on the CPU (--device cpu)");
  }
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
