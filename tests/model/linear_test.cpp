#include "nmt/model/linear.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <array>
#include <atomic>

#include "model/int8_matmul.h"
#include "nmt/cpu_features.h"
#include "torch_test_utils.h"

namespace nmt::model {
namespace {

// Checkpoints name the parameters of torch::nn::Linear; the same seed must give the same weights.
TEST(LinearTest, MatchesTorchLinearInNamesInitialisationAndOutput) {
  torch::manual_seed(3);
  torch::nn::Linear reference(24, 40);
  torch::manual_seed(3);
  Linear ours(24, 40);
  const auto expected = reference->named_parameters();
  const auto actual = ours->named_parameters();
  ASSERT_EQ(actual.keys(), expected.keys());
  for (const auto& item : expected) EXPECT_TRUE(torch::equal(actual[item.key()], item.value()));
  const auto x = torch::randn({5, 24});
  EXPECT_TRUE(torch::equal(ours(x), reference(x)));
}

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a.to(torch::kFloat) - b).norm() / b.norm()).item<double>();
}

TEST(LinearTest, Bf16AndInt8FormsStayCloseToFp32AndTrainingIgnoresThem) {
  torch::manual_seed(4);
  Linear linear(64, 96);
  linear->eval();
  const auto x = torch::randn({3, 7, 64});
  const auto fp32 = linear(x);
  linear->set_inference_form(WeightForm::kBf16);
  const auto bf16 = linear(x);
  EXPECT_EQ(bf16.scalar_type(), torch::kBFloat16);
  EXPECT_LT(relative_error(bf16, fp32), 1e-2);
  if (has_int8_inference()) {
    linear->set_inference_form(WeightForm::kInt8);
    const auto int8 = linear(x);
    EXPECT_EQ(int8.sizes(), fp32.sizes());
    EXPECT_EQ(int8.scalar_type(), torch::kFloat);
    EXPECT_LT(relative_error(int8, fp32), 2e-2);
    EXPECT_GT(relative_error(int8, fp32), 0.0) << "the int8 form is really used";
    linear->set_inference_form(WeightForm::kInt8W7);
    const auto int8w7 = linear(x);
    EXPECT_LT(relative_error(int8w7, fp32), 4e-2);
    EXPECT_FALSE(torch::equal(int8w7, int8)) << "the weights really have 7 bits";
  }
  linear->train();
  EXPECT_TRUE(torch::equal(linear(x), fp32)) << "training always computes in fp32";
  linear->eval();
  linear->set_inference_form(WeightForm::kFp32);
  EXPECT_TRUE(torch::equal(linear(x), fp32));
}

// Integers chosen so that the quantisation is exact: then the int8 product equals fp32 exactly.
TEST(Int8MatmulTest, ExactOnValuesTheQuantisationRepresents) {
  if (!has_int8_matmul()) GTEST_SKIP() << "built without the int8 kernel (not x86-64)";
  const auto weight = torch::tensor({{127.0, -127.0, 0.0, 1.0}, {2.0, 4.0, -127.0, 127.0}});
  const auto x = torch::tensor({{127.0, 3.0, -5.0, -127.0}, {0.0, 0.0, 0.0, 0.0}});
  const auto bias = torch::tensor({0.5, -1.0});
  const Int8Matrix matrix = quantize_rows(weight, kInt8Level);
  EXPECT_EQ(matrix.scales, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_TRUE(torch::equal(int8_linear(x, matrix, bias), torch::linear(x, weight, bias)));
  // 7-bit weights: the largest magnitude of each row becomes 63.
  const auto weight_of_7_bits = torch::tensor({{63.0, -63.0, 0.0, 1.0}, {2.0, 4.0, -63.0, 63.0}});
  const Int8Matrix seven_bit = quantize_rows(weight_of_7_bits, kInt7Level);
  EXPECT_EQ(seven_bit.scales, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_TRUE(
      torch::equal(int8_linear(x, seven_bit, bias), torch::linear(x, weight_of_7_bits, bias)));
}

// Which kernel runs follows the CPU (under NMT_CPU_ISA's cap): a VNNI one wherever the CPU has
// AVX512-VNNI or AVX-VNNI (every CPU with AMX-INT8 has AVX512-VNNI), the AVX2 kernels below that.
// CI runs this at both tiers.
TEST(Int8MatmulTest, AVnniKernelRunsExactlyWhereTheCpuHasVnni) {
  if (!has_int8_matmul()) GTEST_SKIP() << "built without the int8 kernel (not x86-64)";
  EXPECT_EQ(int8_runs_on_vnni(), cpu_has_avx512_vnni() || cpu_has_avx_vnni());
}

// The product's output columns are shared among the threads: the bytes do not depend on how.
TEST(Int8MatmulTest, OneOrTwoThreadsGiveTheSameBytes) {
  if (!has_int8_matmul()) GTEST_SKIP() << "built without the int8 kernel (not x86-64)";
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2, which every int8 kernel needs";
  torch::manual_seed(8);
  const auto weight = torch::randn({1000, 96});
  const auto x = torch::randn({37, 96});
  const auto bias = torch::randn({1000});
  const Int8Matrix matrix = quantize_rows(weight, kInt8Level);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one_thread = int8_linear(x, matrix, bias);
  at::set_num_threads(2);
  const auto two_threads = int8_linear(x, matrix, bias);
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(one_thread, two_threads));
}

// at::parallel_for's work-sharing is an OpenMP pragma in a header: in code built without OpenMP it
// runs the whole range on the calling thread (nmt's int8 products, Adam and dropout did until
// cmake/NmtDependencies.cmake gave every Torch target OpenMP).
TEST(ThreadsTest, AtenParallelForSharesItsRangeAmongTheThreads) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  std::array<std::atomic<bool>, 2> ran{};
  at::parallel_for(0, 64, 1, [&](int64_t, int64_t) {
    ran.at(static_cast<std::size_t>(at::get_thread_num())) = true;
  });
  at::set_num_threads(threads);
  EXPECT_TRUE(ran[0] && ran[1]) << "one thread did all the work";
}

}  // namespace
}  // namespace nmt::model
