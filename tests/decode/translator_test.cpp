#include "nmt/decode/translator.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "nmt/cpu_count.h"
#include "nmt/cpu_features.h"
#include "nmt/decode/ensemble_step_model.h"
#include "nmt/decode/transformer_step_model.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/model/linear.h"
#include "nmt/text/vocab.h"
#include "nmt/text/word_tokenizer.h"
#include "torch_test_utils.h"

namespace nmt::decode {
namespace {

text::TokenizerPair words() {
  auto tokenizer = std::make_shared<text::WordTokenizer>(
      text::Vocab::build({"a b c d e f g h"}, 1));  // ids 4..11, the tiny model's vocabulary
  return {tokenizer, tokenizer};
}

// The notebook's decoding: the whole prefix through the decoder at every step.
class FullRecomputeStepModel final : public StepModel {
 public:
  explicit FullRecomputeStepModel(model::Transformer model) : model_(std::move(model)) {}
  void start(const at::Tensor& source) override {
    source_ = source;
    memory_ = model_->encode(source);
    prefix_ = at::empty({source.size(0), 0}, at::kLong);
  }
  at::Tensor step(const at::Tensor& last_ids) override {
    prefix_ = at::cat({prefix_, last_ids.view({-1, 1})}, 1);
    const auto hidden = model_->decode(prefix_, memory_, model::padding_mask(source_));
    return model_->project(hidden.select(1, prefix_.size(1) - 1));
  }
  void keep_rows(const at::Tensor& rows) override {
    source_ = source_.index_select(0, rows);
    memory_ = memory_.index_select(0, rows);
    prefix_ = prefix_.index_select(0, rows);
  }

 private:
  model::Transformer model_;
  at::Tensor source_, memory_, prefix_;
};

// The highest thread id of this process: LibTorch's pool starting a thread raises it.
long newest_thread_id() {
  long newest = 0;
  DIR* tasks = opendir("/proc/self/task");
  while (const dirent* entry = readdir(tasks)) newest = std::max(newest, std::atol(entry->d_name));
  closedir(tasks);
  return newest;
}

TEST(ThreadCountTest, ACountTheThreadHasIsNotSetAgain) {
  at::set_num_threads(2);
  (void)at::get_num_threads();  // a thread's first question sets its count (LibTorch's lazy init)
  const long first = newest_thread_id();
  at::set_num_threads(2);
  if (newest_thread_id() == first) {
    GTEST_SKIP() << "this LibTorch keeps its thread pool when the count does not change";
  }
  // LibTorch 1.13 re-creates its pool, starting a thread, whatever the count; nmt does not ask.
  const long before = newest_thread_id();
  set_threads(2);
  EXPECT_EQ(newest_thread_id(), before) << "the count was set again";
}

TEST(ThreadCountTest, AScopeSetsItsCountAndGivesThePreviousOneBack) {
  set_threads(2);
  {
    const ThreadCountScope scope(1);
    EXPECT_EQ(at::get_num_threads(), 1);
    {
      const ThreadCountScope all_cores(0);
      EXPECT_EQ(at::get_num_threads(), usable_cpu_count());
    }
    EXPECT_EQ(at::get_num_threads(), 1);
  }
  EXPECT_EQ(at::get_num_threads(), 2);
}

TEST(TranslatorCountTest, IsTheOptionOrAsManyAsTheThreadsHoldAtLeastOne) {
  SearchOptions options;
  options.threads = 2;
  EXPECT_EQ(translator_count(options, 8), 4);
  EXPECT_EQ(translator_count(options, 5), 2);
  EXPECT_EQ(translator_count(options, 1), 1);
  options.translators = 3;
  EXPECT_EQ(translator_count(options, 8), 3);
}

TEST(IncrementalDecodingTest, GivesTheSameTokensAndScoresAsFullRecomputation) {
  auto model = testing::tiny_model(model::NormPosition::kPost, 12, 8);
  torch::manual_seed(9);
  const auto source = torch::randint(4, 12, {6, 7}, torch::kLong);
  const std::vector<int64_t> lengths(6, 7);
  GreedySearch greedy(12);
  BeamSearch beam(3, 1.0, 3, 12);
  for (const SearchStrategy* search :
       {static_cast<const SearchStrategy*>(&greedy), static_cast<const SearchStrategy*>(&beam)}) {
    TransformerStepModel incremental(model);
    FullRecomputeStepModel full(model);
    const auto a = search->search(incremental, source, lengths);
    const auto b = search->search(full, source, lengths);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].size(), b[i].size());
      for (std::size_t n = 0; n < a[i].size(); ++n) {
        EXPECT_EQ(a[i][n].ids, b[i][n].ids);
        EXPECT_NEAR(a[i][n].score, b[i][n].score, 1e-3);
      }
    }
  }
}

TEST(TranslatorTest, KeepsInputOrderAndLineCountAcrossSortedBatches) {
  Translator translator(testing::tiny_model(model::NormPosition::kPre, 12, 2), words(),
                        text::CleanMode::kNotebook, torch::kCPU);
  const std::vector<std::string> inputs = {"a b c d e f",     "", "b", "c d", "   ",
                                           "h g f e d c b a", "a"};
  SearchOptions options;
  options.batch_size = 2;
  const TranslationReport batched = translator.translate(inputs, options);
  ASSERT_EQ(batched.results.size(), inputs.size());
  EXPECT_EQ(batched.results[1][0].text, "");
  EXPECT_EQ(batched.results[4][0].text, "");
  options.batch_size = 1;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TranslationReport alone = translator.translate({inputs[i]}, options);
    EXPECT_EQ(alone.results[0][0].ids, batched.results[i][0].ids) << inputs[i];
  }
}

// A server stops a batch whose clients all left at the next step, in every translator thread.
TEST(TranslatorTest, AStopCheckIsAskedEveryStepAndStopsTheCallWhenItAnswersTrue) {
  Translator translator(testing::tiny_model(model::NormPosition::kPre, 12, 2), words(),
                        text::CleanMode::kNotebook, torch::kCPU);
  const std::vector<std::string> inputs = {"a b c", "d e f g", "h", "b c d e f"};
  for (const Strategy strategy : {Strategy::kGreedy, Strategy::kBeam}) {
    SearchOptions options;
    options.strategy = strategy;
    options.max_len = 6;
    options.batch_size = 1;
    options.translators = 2;
    const TranslationReport unchecked = translator.translate(inputs, options);
    std::atomic<int> asked{0};
    const TranslationReport checked =
        translator.translate(inputs, options, [&asked] { return ++asked < 0; });
    EXPECT_GE(asked.load(), 4 * 2) << "a start and at least one step per sentence";
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(checked.results[i][0].ids, unchecked.results[i][0].ids);
    }
    std::atomic<int> steps{0};
    EXPECT_THROW(translator.translate(inputs, options, [&steps] { return ++steps > 3; }), Stopped);
    EXPECT_LE(steps.load(), 4 + 2) << "each translator thread stops at its next step";
  }
}

TEST(TranslatorTest, UnknownWordsAndOverlongInputsDoNotFail) {
  Translator translator(testing::tiny_model(model::NormPosition::kPre, 12, 2), words(),
                        text::CleanMode::kNotebook, torch::kCPU);
  std::string long_input;
  for (int i = 0; i < 1500; ++i) long_input += "a ";
  SearchOptions options;
  options.max_len = 5;
  const TranslationReport report = translator.translate({"zzz unknown words", long_input}, options);
  EXPECT_EQ(report.truncated_inputs, 1);
  EXPECT_LE(report.results[1][0].ids.size(), 5u);
}

// A batch holds at most 16,384 padded source positions times the hypotheses per sentence: a
// sentence of 1,024 tokens under beam 16 is decoded alone, not padding 63 short ones to its length.
TEST(TranslatorTest, LongSentencesAreBatchedByPositionsNotOnlyBySentences) {
  Translator translator(testing::tiny_model(model::NormPosition::kPre, 12, 2), words(),
                        text::CleanMode::kNotebook, torch::kCPU);
  std::string long_input;
  for (int i = 0; i < 1500; ++i) long_input += "a ";
  std::vector<std::string> inputs(63, "b c");
  inputs.insert(inputs.begin() + 10, long_input);
  SearchOptions options;
  options.strategy = Strategy::kBeam;
  options.beam_size = 16;
  options.max_len = 3;
  options.translators = 1;
  const TranslationReport report = translator.translate(inputs, options);
  ASSERT_EQ(report.results.size(), 64u);
  // Alone: 1,024 positions; the 63 others together at their own width.
  const TranslationReport shorts =
      translator.translate(std::vector<std::string>(63, "b c"), options);
  EXPECT_EQ(report.source_positions, 1024 + shorts.source_positions);
  EXPECT_EQ(report.results[11][0].ids, shorts.results[0][0].ids);
  options.beam_size = 1;
  options.strategy = Strategy::kGreedy;
  // Greedy: 16 rows of 1,024 fit, so the long one shares its batch with 15 short ones.
  const TranslationReport greedy = translator.translate(inputs, options);
  const TranslationReport greedy_rest =
      translator.translate(std::vector<std::string>(48, "b c"), options);
  EXPECT_EQ(greedy.source_positions, 16 * 1024 + greedy_rest.source_positions);
}

// Batches decoded side by side by several worker threads give exactly the results of one thread
// decoding them in order, and once the translator is gone, whatever precisions it decoded in, the
// model computes in fp32 as before.
TEST(TranslatorTest, ParallelBatchesAndPrecisionsLeaveResultsAndModelUnchanged) {
  auto model = testing::tiny_model(model::NormPosition::kPre, 12, 2);
  auto translator =
      std::make_unique<Translator>(model, words(), text::CleanMode::kNotebook, torch::kCPU);
  const std::vector<std::string> inputs = {"a b c d", "h g f", "b", "c d e f g", "e", "d c"};
  const auto source = torch::tensor({{4, 5, 6}}, torch::kLong);
  const auto before = model->forward(source, source);
  for (const Strategy strategy : {Strategy::kGreedy, Strategy::kBeam}) {
    SearchOptions options;
    options.strategy = strategy;
    options.batch_size = 1;
    options.precision = Precision::kFp32;
    const int threads = at::get_num_threads();
    at::set_num_threads(1);
    const TranslationReport in_order = translator->translate(inputs, options);
    at::set_num_threads(2);
    const TranslationReport side_by_side = translator->translate(inputs, options);
    EXPECT_EQ(at::get_num_threads(), 2) << "the thread count is restored";
    at::set_num_threads(threads);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(side_by_side.results[i][0].ids, in_order.results[i][0].ids) << inputs[i];
      EXPECT_EQ(side_by_side.results[i][0].score, in_order.results[i][0].score) << inputs[i];
    }
    for (const Precision precision : {Precision::kBf16, Precision::kInt8, Precision::kInt8W7}) {
      if (precision != Precision::kBf16 && !(model::has_int8_inference() && cpu_has_avx2())) {
        continue;
      }
      options.precision = precision;
      if (precision == Precision::kBf16 && cpu_tier() < CpuTier::kAvx512) {
        EXPECT_THROW(translator->translate(inputs, options), ConfigError)
            << "bf16 below AVX-512 is refused before oneDNN fails";
        continue;
      }
      EXPECT_EQ(translator->translate(inputs, options).results.size(), inputs.size());
    }
  }
  translator.reset();
  EXPECT_TRUE(torch::equal(model->forward(source, source), before));
}

// A translator's threads share each step's rows (greedy) and sentences (beam): one thread or two
// give the same hypotheses and scores, in fp32 and in int8. Scores are the same bits where
// LibTorch's BLAS is OpenBLAS (Debian's); MKL (PyPI's wheels) picks its fp32 kernel by the shape
// of a product, so a row multiplied among a thread's share of rows can round apart from the same
// row among all of them (greedy fp32, LibTorch 2.11 on a Zen 3: 1 ulp).
TEST(TranslatorTest, ThreadsOfOneTranslatorLeaveResultsUnchanged) {
  Translator translator(testing::tiny_model(model::NormPosition::kPre, 12, 2), words(),
                        text::CleanMode::kNotebook, torch::kCPU);
  const std::vector<std::string> inputs = {"a b c d", "h g f", "b", "c d e f g", "e",
                                           "d c",     "a a b", "g", "f e d c",   "b c"};
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  for (const Strategy strategy : {Strategy::kGreedy, Strategy::kBeam}) {
    for (const Precision precision : {Precision::kFp32, Precision::kInt8, Precision::kInt8W7}) {
      if (precision != Precision::kFp32 && !(model::has_int8_inference() && cpu_has_avx2())) {
        continue;
      }
      SCOPED_TRACE(std::string(strategy == Strategy::kGreedy ? "greedy " : "beam ") +
                   (precision == Precision::kFp32   ? "fp32"
                    : precision == Precision::kInt8 ? "int8"
                                                    : "int8w7"));
      SearchOptions options;
      options.strategy = strategy;
      options.precision = precision;
      options.batch_size = static_cast<int64_t>(inputs.size());
      options.translators = 1;
      options.threads = 1;
      const TranslationReport one = translator.translate(inputs, options);
      options.threads = 2;
      const TranslationReport two = translator.translate(inputs, options);
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_EQ(two.results[i][0].ids, one.results[i][0].ids) << inputs[i];
        if (at::hasMKL()) {
          EXPECT_FLOAT_EQ(two.results[i][0].score, one.results[i][0].score) << inputs[i];
        } else {
          EXPECT_EQ(two.results[i][0].score, one.results[i][0].score) << inputs[i];
        }
      }
    }
  }
  at::set_num_threads(threads);
}

// Training and decoding share one model definition: searches through the CPU decoder give the
// hypotheses of the model's own LibTorch step, in fp32 and both int8s (bf16 rounds the two paths'
// inputs apart; CpuDecoderTest compares its logits).
TEST(TranslatorTest, TheCpuDecoderSearchesAsTheModelsOwnStep) {
  auto model = testing::tiny_model(model::NormPosition::kPre, 12, 5);
  torch::manual_seed(9);
  const auto source = torch::randint(4, 12, {6, 7}, torch::kLong);
  const std::vector<int64_t> lengths(6, 7);
  GreedySearch greedy(12);
  BeamSearch beam(3, 1.0, 3, 12);
  c10::InferenceMode inference;
  for (const model::WeightForm form :
       {model::WeightForm::kFp32, model::WeightForm::kInt8, model::WeightForm::kInt8W7}) {
    if (form != model::WeightForm::kFp32 && !model::has_int8_inference()) continue;
    // In int8 both paths quantise each row of activations from float sums taken in different
    // orders, so now and then an activation rounds the other way and moves a log-probability by
    // about 1e-3: 2.1e-3 on one sentence's beams with LibTorch 2.11's step, the same tokens,
    // where fp32's scores stay within 4e-6.
    const double tolerance = model::is_int8(form) ? 1e-2 : 1e-3;
    model->set_inference_form(form);
    const model::CpuDecoder decoder(*model);
    for (const SearchStrategy* search :
         {static_cast<const SearchStrategy*>(&greedy), static_cast<const SearchStrategy*>(&beam)}) {
      TransformerStepModel libtorch_step(model);
      TransformerStepModel cpu_step(model, &decoder);
      const auto a = search->search(libtorch_step, source, lengths);
      const auto b = search->search(cpu_step, source, lengths);
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].size(), b[i].size());
        for (std::size_t n = 0; n < a[i].size(); ++n) {
          EXPECT_EQ(a[i][n].ids, b[i][n].ids) << "form " << static_cast<int>(form);
          EXPECT_NEAR(a[i][n].score, b[i][n].score, tolerance) << "form " << static_cast<int>(form);
        }
      }
    }
  }
  model->set_inference_form(model::WeightForm::kFp32);
}

// A member that always proposes the same logits.
class FixedLogitsStepModel final : public StepModel {
 public:
  explicit FixedLogitsStepModel(at::Tensor logits) : logits_(std::move(logits)) {}
  void start(const at::Tensor&) override {}
  at::Tensor step(const at::Tensor& last_ids) override {
    return logits_.expand({last_ids.size(0), logits_.size(0)});
  }
  void keep_rows(const at::Tensor& rows) override { kept_.push_back(rows); }
  std::vector<at::Tensor> kept_;

 private:
  at::Tensor logits_;
};

TEST(EnsembleTest, AStepAveragesTheMembersLogProbabilities) {
  FixedLogitsStepModel first(torch::tensor({2.0f, 0.0f, -1.0f}));
  FixedLogitsStepModel second(torch::tensor({0.0f, 3.0f, 0.0f}));
  EnsembleStepModel ensemble({&first, &second});
  const auto combined = ensemble.step(torch::tensor({1, 1}, torch::kLong));
  const auto expected = (torch::log_softmax(torch::tensor({2.0f, 0.0f, -1.0f}), -1) +
                         torch::log_softmax(torch::tensor({0.0f, 3.0f, 0.0f}), -1)) /
                        2;
  ASSERT_EQ(combined.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(testing::all_close(combined[0], expected));
  EXPECT_TRUE(testing::all_close(combined[1], expected));
  ensemble.keep_rows(torch::tensor({1}, torch::kLong));
  EXPECT_EQ(first.kept_.size(), 1u);
  EXPECT_EQ(second.kept_.size(), 1u);
}

TEST(EnsembleTest, AnEnsembleOfOneTranslatesLikeTheModelAlone) {
  auto model = testing::tiny_model(model::NormPosition::kPre, 12, 2);
  const auto source = torch::tensor({{4, 5, 6, 7}, {8, 9, 0, 0}}, torch::kLong);
  for (const Strategy strategy : {Strategy::kGreedy, Strategy::kBeam}) {
    SearchOptions options;
    options.strategy = strategy;
    options.max_len = 8;
    const auto search = make_search(options);
    c10::InferenceMode inference;
    TransformerStepModel alone(model);
    const auto expected = search->search(alone, source, {4, 2});
    TransformerStepModel member(model);
    EnsembleStepModel ensemble({&member});
    const auto got = search->search(ensemble, source, {4, 2});
    for (std::size_t row = 0; row < expected.size(); ++row) {
      ASSERT_EQ(got[row].size(), expected[row].size());
      for (std::size_t k = 0; k < expected[row].size(); ++k) {
        EXPECT_EQ(got[row][k].ids, expected[row][k].ids);
        EXPECT_NEAR(got[row][k].score, expected[row][k].score, 1e-4);
      }
    }
  }
}

TEST(EnsembleTest, TwoModelsDecodeTogetherAndTwoCopiesAgreeWithOne) {
  auto first = testing::tiny_model(model::NormPosition::kPre, 12, 2);
  auto second = testing::tiny_model(model::NormPosition::kPre, 12, 3);
  const std::vector<std::string> inputs = {"a b c d", "h g f", "b"};
  SearchOptions options;
  options.strategy = Strategy::kBeam;
  options.precision = Precision::kFp32;
  const auto alone = Translator(first, words(), text::CleanMode::kNotebook, torch::kCPU)
                         .translate(inputs, options);
  // Named vectors: GCC 13 finds a braced pair ambiguous between the one-model and the ensemble
  // constructors (a Transformer holder is constructible from two holders' worth of arguments).
  const std::vector<model::Transformer> two_copies = {first, first};
  const std::vector<model::Transformer> two_models = {first, second};
  const auto copies = Translator(two_copies, words(), text::CleanMode::kNotebook, torch::kCPU)
                          .translate(inputs, options);
  const auto pair = Translator(two_models, words(), text::CleanMode::kNotebook, torch::kCPU)
                        .translate(inputs, options);
  ASSERT_EQ(pair.results.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(copies.results[i][0].ids, alone.results[i][0].ids) << inputs[i];
  }
  EXPECT_EQ(pair.source_positions, 2 * alone.source_positions)
      << "each member encodes every source";
}

TEST(DecodePrecisionTest, AutoIsInt8WithVnniInt8W7WithOnlyAvx2AndFp32Elsewhere) {
  EXPECT_EQ(resolve_precision(Precision::kAuto, /*is_cuda=*/false, CpuInt8::kVnni),
            Precision::kInt8);
  EXPECT_EQ(resolve_precision(Precision::kAuto, /*is_cuda=*/false, CpuInt8::kAvx2),
            Precision::kInt8W7);
  EXPECT_EQ(resolve_precision(Precision::kAuto, /*is_cuda=*/false, CpuInt8::kNone),
            Precision::kFp32);
  EXPECT_EQ(resolve_precision(Precision::kAuto, /*is_cuda=*/true, CpuInt8::kVnni),
            Precision::kFp32);
  EXPECT_EQ(resolve_precision(Precision::kBf16, /*is_cuda=*/true, CpuInt8::kNone),
            Precision::kBf16);
  EXPECT_EQ(resolve_precision(Precision::kInt8, /*is_cuda=*/false, CpuInt8::kAvx2),
            Precision::kInt8)
      << "an explicit int8 keeps its 8-bit weights";
}

// With VNNI auto decodes in int8; at the AVX2 tier in int8w7, on avx2_gemm_7bit; at the baseline,
// in fp32.
TEST(DecodePrecisionTest, AutoFollowsTheCpuTier) {
  if (!(model::has_int8_inference() && cpu_has_avx2())) {
    GTEST_SKIP() << "this build or CPU runs no int8 kernel";
  }
  EXPECT_EQ(decoding_form(Precision::kAuto, torch::kCPU),
            model::int8_runs_on_vnni() ? model::WeightForm::kInt8 : model::WeightForm::kInt8W7);
  EXPECT_EQ(decoding_form(Precision::kInt8W7, torch::kCPU), model::WeightForm::kInt8W7);
  EXPECT_EQ(decoding_form(Precision::kFp32, torch::kCPU), model::WeightForm::kFp32);
}

}  // namespace
}  // namespace nmt::decode
