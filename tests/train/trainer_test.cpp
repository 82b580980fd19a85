#include "nmt/train/trainer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "nmt/cpu_features.h"
#include "nmt/data/encoded_corpus.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "test_utils.h"
#include "torch_test_utils.h"

namespace nmt::train {
namespace {

// The copy task: target = source, tokens 4..11.
data::EncodedCorpus copy_pairs(int count, uint64_t seed, int shift = 0) {
  std::mt19937 random(static_cast<unsigned>(seed));
  std::vector<data::EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    data::EncodedPair pair;
    const int length = 2 + static_cast<int>(random() % 4);
    for (int t = 0; t < length; ++t) pair.source.push_back(4 + static_cast<int64_t>(random() % 8));
    for (const int64_t id : pair.source) pair.target.push_back(4 + (id - 4 + shift) % 8);
    pairs.push_back(pair);
  }
  return data::EncodedCorpus(pairs);
}

TrainOptions small_options() {
  TrainOptions options;
  options.batch_size = 8;
  options.epochs = 2;
  options.lr = 3e-3;
  options.log_every = 5;
  options.threads = 1;
  return options;
}

struct TrainingRun {
  model::Transformer model{nullptr};
  std::unique_ptr<Trainer> trainer;
};

TrainingRun make_run(const std::string& dir,
                     TrainOptions options,
                     data::EncodedCorpus valid = copy_pairs(16, 2),
                     std::function<TranslationScores(model::Transformer&)> scorer = {},
                     data::EncodedCorpus train = copy_pairs(64, 1),
                     std::shared_ptr<TrainingObserver> observer = nullptr) {
  auto model_options = testing::tiny_options();
  model_options.dropout = 0.1;  // so that resuming must restore the generator too
  torch::manual_seed(17);
  TrainingRun run;
  run.model = model::Transformer(model_options, 12, 12);
  TrainerSetup setup{options, RunDir(dir), "{}", torch::kCPU, false, nullptr, {}};
  setup.score_translations = std::move(scorer);
  if (observer) setup.observers.push_back(std::move(observer));
  run.trainer = std::make_unique<Trainer>(run.model, setup, std::move(train), std::move(valid));
  return run;
}

using testing::same_parameters;

TEST(TrainerTest, ResumingMidEpochIsBitIdenticalToTrainingStraight) {
  const std::atomic<bool> never{false};
  testing::ScratchDir straight_dir;
  TrainingRun straight = make_run(straight_dir.path(), small_options());
  ASSERT_EQ(straight.trainer->run(never).reason, StopReason::kFinished);

  testing::ScratchDir resumed_dir;
  TrainOptions first_part = small_options();
  first_part.max_steps = 11;  // epoch 2, batch 3 of 8
  TrainingRun interrupted = make_run(resumed_dir.path(), first_part);
  ASSERT_EQ(interrupted.trainer->run(never).reason, StopReason::kStepLimit);
  torch::manual_seed(12345);  // a different generator state: resume must restore the saved one
  TrainingRun resumed = make_run(resumed_dir.path(), small_options());
  resumed.trainer->resume(resumed_dir.file("checkpoint.pt"));
  EXPECT_EQ(resumed.trainer->progress().step, 11);
  EXPECT_EQ(resumed.trainer->progress().epoch, 1);
  EXPECT_EQ(resumed.trainer->progress().batch, 3);
  ASSERT_EQ(resumed.trainer->run(never).reason, StopReason::kFinished);
  EXPECT_TRUE(same_parameters(straight.model, resumed.model));
}

// A prepared run trains from its mapped token file what a run trains from memory, and resumes
// from it mid-epoch on the same batch.
TEST(TrainerTest, TrainingFromATokenFileResumedMidEpochIsBitIdenticalToMemory) {
  const std::atomic<bool> never{false};
  testing::ScratchDir straight_dir;
  TrainingRun straight = make_run(straight_dir.path(), small_options());
  ASSERT_EQ(straight.trainer->run(never).reason, StopReason::kFinished);

  testing::ScratchDir resumed_dir;
  const std::string token_file = resumed_dir.file("train.ids");
  data::write_token_file(token_file, copy_pairs(64, 1), 12, 12);
  TrainOptions first_part = small_options();
  first_part.max_steps = 11;
  TrainingRun interrupted = make_run(resumed_dir.path(), first_part, copy_pairs(16, 2), {},
                                     data::EncodedCorpus::map(token_file));
  ASSERT_EQ(interrupted.trainer->run(never).reason, StopReason::kStepLimit);
  TrainingRun resumed = make_run(resumed_dir.path(), small_options(), copy_pairs(16, 2), {},
                                 data::EncodedCorpus::map(token_file));
  resumed.trainer->resume(resumed_dir.file("checkpoint.pt"));
  EXPECT_EQ(resumed.trainer->progress().batch, 3);
  ASSERT_EQ(resumed.trainer->run(never).reason, StopReason::kFinished);
  EXPECT_TRUE(same_parameters(straight.model, resumed.model));
}

// Subword regularisation hands the trainer each epoch's pairs encoded anew; a run resumed
// mid-epoch asks for that epoch's pairs again and ends where an uninterrupted run ends.
TEST(TrainerTest, PairsEncodedAnewEachEpochResumeBitIdentically) {
  const std::atomic<bool> never{false};
  std::vector<int64_t> asked;
  const auto per_epoch = [&asked](int64_t epoch) {
    asked.push_back(epoch);
    return copy_pairs(64, 100 + static_cast<uint64_t>(epoch));  // other lengths, other batches
  };
  testing::ScratchDir straight_dir;
  TrainingRun straight = make_run(straight_dir.path(), small_options());
  straight.trainer = std::make_unique<Trainer>(straight.model,
                                               TrainerSetup{small_options(),
                                                            RunDir(straight_dir.path()),
                                                            "{}",
                                                            torch::kCPU,
                                                            false,
                                                            nullptr,
                                                            {},
                                                            per_epoch},
                                               copy_pairs(64, 1), copy_pairs(16, 2));
  ASSERT_EQ(straight.trainer->run(never).reason, StopReason::kFinished);
  EXPECT_EQ(asked, (std::vector<int64_t>{0, 1}));

  testing::ScratchDir resumed_dir;
  TrainOptions first_part = small_options();
  first_part.max_steps = 11;  // epoch 2, batch 3 of 8
  TrainingRun interrupted = make_run(resumed_dir.path(), first_part);
  interrupted.trainer = std::make_unique<Trainer>(
      interrupted.model,
      TrainerSetup{
          first_part, RunDir(resumed_dir.path()), "{}", torch::kCPU, false, nullptr, {}, per_epoch},
      copy_pairs(64, 1), copy_pairs(16, 2));
  ASSERT_EQ(interrupted.trainer->run(never).reason, StopReason::kStepLimit);
  torch::manual_seed(12345);
  TrainingRun resumed = make_run(resumed_dir.path(), small_options());
  resumed.trainer = std::make_unique<Trainer>(resumed.model,
                                              TrainerSetup{small_options(),
                                                           RunDir(resumed_dir.path()),
                                                           "{}",
                                                           torch::kCPU,
                                                           false,
                                                           nullptr,
                                                           {},
                                                           per_epoch},
                                              copy_pairs(64, 1), copy_pairs(16, 2));
  resumed.trainer->resume(resumed_dir.file("checkpoint.pt"));
  asked.clear();
  ASSERT_EQ(resumed.trainer->run(never).reason, StopReason::kFinished);
  EXPECT_EQ(asked, (std::vector<int64_t>{1}));
  EXPECT_TRUE(same_parameters(straight.model, resumed.model));
}

// The train_loss of each epoch record in a run's metrics.jsonl.
std::vector<double> epoch_train_losses(const std::string& metrics) {
  std::vector<double> losses;
  for (const std::string& line : read_lines(metrics)) {
    const auto record = nlohmann::json::parse(line);
    if (record["event"] == "epoch") losses.push_back(record["train_loss"].get<double>());
  }
  return losses;
}

TEST(TrainerTest, AnEpochResumedInItsMiddleReportsTheWholeEpochsTrainLoss) {
  const std::atomic<bool> never{false};
  testing::ScratchDir straight_dir;
  ASSERT_EQ(make_run(straight_dir.path(), small_options()).trainer->run(never).reason,
            StopReason::kFinished);
  testing::ScratchDir resumed_dir;
  TrainOptions first_part = small_options();
  first_part.max_steps = 11;  // epoch 2, batch 3 of 8
  ASSERT_EQ(make_run(resumed_dir.path(), first_part).trainer->run(never).reason,
            StopReason::kStepLimit);
  TrainingRun resumed = make_run(resumed_dir.path(), small_options());
  resumed.trainer->resume(resumed_dir.file("checkpoint.pt"));
  ASSERT_EQ(resumed.trainer->run(never).reason, StopReason::kFinished);
  // Epoch 2's loss sums its 3 batches before the stop (kept in checkpoint.pt) and its 5 after.
  const std::vector<double> straight = epoch_train_losses(straight_dir.file("metrics.jsonl"));
  ASSERT_EQ(straight.size(), 2u);
  EXPECT_EQ(epoch_train_losses(resumed_dir.file("metrics.jsonl")), straight);
}

TEST(UpdateStepTest, AnUpdateOfTwoMicroBatchesEqualsOneBatchOfTwiceTheTokens) {
  auto model_options = testing::tiny_options();  // no dropout: both sides see the same network
  torch::manual_seed(17);
  model::Transformer accumulated(model_options, 12, 12);
  torch::manual_seed(17);
  model::Transformer whole(model_options, 12, 12);
  const data::EncodedCorpus pairs = copy_pairs(16, 1);
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.precision = Precision::kFp32;  // bf16 rounds the two paddings differently
  // Adam moves a weight by about lr whatever the size of its gradient, so a gradient of 1e-9 that
  // differs in the last bits between the two summation orders would move weights by lr apart; a
  // large epsilon keeps updates proportional to small gradients.
  options.adam_eps = 1e-3;
  TrainOptions whole_options = options;
  options.update_freq = 2;
  UpdateStep by_parts(accumulated, options, torch::kCPU, nullptr);
  UpdateStep at_once(whole, whole_options, torch::kCPU, nullptr);
  for (int update = 0; update < 3; ++update) {
    // Sentences of different lengths in each half: the halves pad differently from the whole.
    std::vector<std::size_t> first;
    std::vector<std::size_t> second;
    for (std::size_t i = 0; i < pairs.size(); ++i) (i % 3 == 0 ? first : second).push_back(i);
    std::vector<std::size_t> all = first;
    all.insert(all.end(), second.begin(), second.end());
    const data::Batch a = data::collate(pairs, first);
    const data::Batch b = data::collate(pairs, second);
    const StepResult parts = by_parts.run({a, b}, a.target_tokens + b.target_tokens);
    const StepResult once = at_once.run(data::collate(pairs, all));
    EXPECT_NEAR(parts.loss.sum.item<double>(), once.loss.sum.item<double>(), 1e-3);
    EXPECT_EQ(parts.loss.tokens.item<int64_t>(), once.loss.tokens.item<int64_t>());
  }
  double largest = 0.0;
  auto wb = whole->named_parameters();
  for (const auto& item : accumulated->named_parameters()) {
    largest = std::max(largest, (item.value() - wb[item.key()]).abs().max().item<double>());
  }
  EXPECT_LE(largest, 1e-5);
}

TEST(TrainerTest, LearnsTheCopyTaskAndWritesTheRunFiles) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 20;
  TrainingRun run = make_run(dir.path(), options);
  const double before = run.trainer->validate().loss;
  const TrainResult result = run.trainer->run(never);
  EXPECT_EQ(result.reason, StopReason::kFinished);
  EXPECT_LT(run.trainer->validate().loss, before * 0.6);
  EXPECT_TRUE(std::filesystem::exists(dir.file("checkpoint.pt")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("best.pt")));

  int train_records = 0;
  int epoch_records = 0;
  for (const std::string& line : read_lines(dir.file("metrics.jsonl"))) {
    const auto record = nlohmann::json::parse(line);
    if (record["event"] == "train") ++train_records;
    if (record["event"] == "epoch") {
      ++epoch_records;
      EXPECT_TRUE(record.contains("valid_loss"));
    }
  }
  EXPECT_EQ(epoch_records, 20);
  int expected_train_records = 0;  // every 5th step, and the last batch of each 8-batch epoch
  for (int step = 1; step <= 20 * 8; ++step)
    expected_train_records += step % 5 == 0 || step % 8 == 0;
  EXPECT_EQ(train_records, expected_train_records);
}

// bf16 autocast on the CPU (fp32 master weights, Adam, loss and softmax) follows fp32 training
// closely: the same copy task, the same steps, validation losses within 5% of each other.
TEST(TrainerTest, Bf16OnTheCpuTrainsLikeFp32) {
  if (cpu_tier() < CpuTier::kAvx512) GTEST_SKIP() << "bf16 on the CPU needs AVX-512";
  const std::atomic<bool> never{false};
  double valid_loss[2] = {0.0, 0.0};
  for (const Precision precision : {Precision::kFp32, Precision::kBf16}) {
    testing::ScratchDir dir;
    TrainOptions options = small_options();
    options.epochs = 6;
    options.precision = precision;
    TrainingRun run = make_run(dir.path(), options);
    const double before = run.trainer->validate().loss;
    ASSERT_EQ(run.trainer->run(never).reason, StopReason::kFinished);
    valid_loss[precision == Precision::kBf16] = run.trainer->validate().loss;
    EXPECT_LT(valid_loss[precision == Precision::kBf16], 0.8 * before);
  }
  EXPECT_NEAR(valid_loss[1], valid_loss[0], 0.05 * valid_loss[0]);
}

TEST(PrecisionTest, AutoIsBf16OnlyOnACpuWhereItTrainsFaster) {
  EXPECT_TRUE(uses_bf16(Precision::kAuto, /*is_cuda=*/false, /*bf16_is_faster=*/true));
  EXPECT_FALSE(uses_bf16(Precision::kAuto, /*is_cuda=*/false, /*bf16_is_faster=*/false));
  EXPECT_FALSE(uses_bf16(Precision::kAuto, /*is_cuda=*/true, /*bf16_is_faster=*/true));
  EXPECT_TRUE(uses_bf16(Precision::kBf16, /*is_cuda=*/false, /*bf16_is_faster=*/false));
  EXPECT_TRUE(uses_bf16(Precision::kBf16, /*is_cuda=*/true, /*bf16_is_faster=*/false));
  EXPECT_FALSE(uses_bf16(Precision::kFp32, /*is_cuda=*/false, /*bf16_is_faster=*/true));
  EXPECT_EQ(uses_bf16(Precision::kAuto, /*is_cuda=*/false), cpu_trains_faster_in_bf16());
}

// Below AVX-512 (a CPU without it, or NMT_CPU_ISA=avx2 as in CI's second run) bf16 on the CPU is
// refused with the key and the tier; above, it is used.
TEST(PrecisionTest, Bf16OnTheCpuNeedsAvx512) {
  if (cpu_tier() >= CpuTier::kAvx512) {
    EXPECT_TRUE(uses_bf16(Precision::kBf16, /*is_cuda=*/false));
    return;
  }
  try {
    uses_bf16(Precision::kBf16, /*is_cuda=*/false);
    ADD_FAILURE() << "bf16 was not refused";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              std::string("train.precision: bf16 on the CPU needs AVX-512 (oneDNN's bf16 "
                          "kernels), above this CPU tier (") +
                  tier_name(cpu_tier()) + "); use fp32 or auto");
  }
  EXPECT_FALSE(uses_bf16(Precision::kAuto, /*is_cuda=*/false));
  EXPECT_TRUE(uses_bf16(Precision::kBf16, /*is_cuda=*/true));
}

TEST(TrainerTest, StopRequestSavesACheckpointAtTheCurrentBatch) {
  const std::atomic<bool> stop{true};
  testing::ScratchDir dir;
  TrainingRun run = make_run(dir.path(), small_options());
  const TrainResult result = run.trainer->run(stop);
  EXPECT_EQ(result.reason, StopReason::kInterrupted);
  EXPECT_NE(result.message.find("--resume"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.file("checkpoint.pt")));
}

TEST(TrainerTest, ANonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 1;
  TrainingRun run = make_run(dir.path(), options);
  ASSERT_EQ(run.trainer->run(never).reason, StopReason::kFinished);
  const std::string good = testing::read_file(dir.file("checkpoint.pt"));
  {
    torch::NoGradGuard no_grad;
    run.model->named_parameters()["decoder.0.norm1.weight"].fill_(
        std::numeric_limits<float>::quiet_NaN());
  }
  TrainOptions more = options;
  more.epochs = 2;
  TrainingRun continued{
      run.model,
      std::make_unique<Trainer>(
          run.model, TrainerSetup{more, RunDir(dir.path()), "{}", torch::kCPU, false, nullptr, {}},
          copy_pairs(64, 1), copy_pairs(16, 2))};
  continued.trainer->resume(dir.file("checkpoint.pt"));
  {
    torch::NoGradGuard no_grad;
    run.model->named_parameters()["decoder.0.norm1.weight"].fill_(
        std::numeric_limits<float>::quiet_NaN());
  }
  const TrainResult result = continued.trainer->run(never);
  EXPECT_EQ(result.reason, StopReason::kDiverged);
  EXPECT_NE(result.message.find("last good checkpoint is kept"), std::string::npos);
  EXPECT_EQ(testing::read_file(dir.file("checkpoint.pt")), good);
}

TEST(TrainerTest, EarlyStoppingEndsTrainingWhenValidationStopsImproving) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 20;
  options.early_stopping = 2;
  // Validation targets are shifted by one token: the better the model copies, the worse they
  // score.
  TrainingRun run = make_run(dir.path(), options, copy_pairs(16, 2, /*shift=*/1));
  const TrainResult result = run.trainer->run(never);
  EXPECT_EQ(result.reason, StopReason::kEarlyStopped);
  EXPECT_LT(result.progress.epoch, 20);
  EXPECT_EQ(result.progress.validations_without_improvement, 2);
}

// A scorer that hands out the given BLEU scores in turn (chrF = BLEU + 20).
std::function<TranslationScores(model::Transformer&)> scripted_bleu(std::vector<double> scores,
                                                                    std::size_t& calls) {
  return [scores = std::move(scores), &calls](model::Transformer&) {
    const double bleu = scores.at(calls++);
    return TranslationScores{bleu, bleu + 20.0, 16};
  };
}

std::vector<nlohmann::json> records_of(const std::string& metrics, const std::string& event) {
  std::vector<nlohmann::json> found;
  for (const std::string& line : read_lines(metrics)) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record["event"] == event) found.push_back(record);
  }
  return found;
}

TEST(TrainerTest, ValidatesEveryNStepsAndKeepsBestPtByBleu) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();  // 8 batches per epoch, 2 epochs
  options.valid_every = 3;
  options.best_metric = BestMetric::kBleu;
  std::size_t calls = 0;
  TrainingRun run =
      make_run(dir.path(), options, copy_pairs(16, 2), scripted_bleu({10, 30, 20, 25, 5}, calls));
  const TrainResult result = run.trainer->run(never);
  ASSERT_EQ(result.reason, StopReason::kFinished);
  EXPECT_EQ(calls, 5u) << "steps 3, 6, 9, 12 and 15";
  const auto valid = records_of(dir.file("metrics.jsonl"), "valid");
  ASSERT_EQ(valid.size(), 5u);
  const std::vector<bool> best = {true, true, false, false, false};
  for (std::size_t i = 0; i < valid.size(); ++i) {
    EXPECT_EQ(valid[i]["step"], 3 * (i + 1));
    EXPECT_EQ(valid[i]["is_best"], best[i]) << i;
    EXPECT_TRUE(valid[i].contains("valid_loss"));
    EXPECT_EQ(valid[i]["valid_chrf"], valid[i]["valid_bleu"].get<double>() + 20.0);
  }
  EXPECT_EQ(valid[1]["valid_bleu"], 30.0);
  for (const auto& epoch : records_of(dir.file("metrics.jsonl"), "epoch")) {
    EXPECT_FALSE(epoch.contains("valid_loss")) << "validation happens every 3 steps instead";
  }
  const auto end = records_of(dir.file("metrics.jsonl"), "end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["best_metric"], "bleu");
  EXPECT_EQ(end[0]["best_score"], 30.0);
  EXPECT_EQ(end[0]["best_step"], 6);
  EXPECT_FALSE(end[0].contains("best_valid_loss"));
  const TrainingState best_pt =
      load_checkpoint(dir.file("best.pt"), run.model, nullptr, torch::kCPU, /*restore_rng=*/false);
  EXPECT_EQ(best_pt.step, 6) << "best.pt holds the weights of step 6";
  EXPECT_EQ(result.progress.best_step, 6);
}

// What the trainer tells its observers, as one line per event (steps without a window left out).
class EventLog final : public TrainingObserver {
 public:
  void run_started(const RunStarted& event) override {
    lines.push_back("start at step " + std::to_string(event.step));
  }
  void step_done(const StepDone& event) override {
    lines.push_back("step " + std::to_string(event.line.step));
  }
  std::optional<TrainStop> validation_done(const ValidationDone& event) override {
    lines.push_back("validation at step " + std::to_string(event.step) +
                    (event.is_best ? ", best" : ""));
    return std::nullopt;
  }
  std::optional<TrainStop> epoch_done(const EpochDone& event) override {
    lines.push_back("epoch " + std::to_string(event.epoch) +
                    (event.validation ? " with validation" : ""));
    return std::nullopt;
  }
  void checkpoint_saved(const CheckpointSaved& event) override {
    const char* names[] = {"checkpoint.pt", "best.pt", "epoch weights"};
    lines.push_back(std::string(names[static_cast<int>(event.kind)]) + " at step " +
                    std::to_string(event.step));
  }
  void stopped(const Stopped& event) override {
    lines.push_back(std::string("stopped: ") + stop_reason_name(event.reason) +
                    (event.best ? ", best.pt of step " + std::to_string(event.best->step) : ""));
  }
  std::vector<std::string> lines;
};

TEST(TrainerTest, ObserversHearTheRunsEventsInTheOrderTheyHappen) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();  // 8 batches per epoch
  options.epochs = 1;
  options.valid_every = 3;
  options.save_every = 5;
  options.keep_epochs = 1;
  options.best_metric = BestMetric::kBleu;
  std::size_t calls = 0;
  auto events = std::make_shared<EventLog>();
  TrainingRun run = make_run(dir.path(), options, copy_pairs(16, 2), scripted_bleu({10, 30}, calls),
                             copy_pairs(64, 1), events);
  ASSERT_EQ(run.trainer->run(never).reason, StopReason::kFinished);
  EXPECT_EQ(events->lines, (std::vector<std::string>{"start at step 0",
                                                     "step 1",
                                                     "step 2",
                                                     "step 3",
                                                     "best.pt at step 3",
                                                     "checkpoint.pt at step 3",
                                                     "validation at step 3, best",
                                                     "step 4",
                                                     "step 5",
                                                     "checkpoint.pt at step 5",
                                                     "step 6",
                                                     "best.pt at step 6",
                                                     "checkpoint.pt at step 6",
                                                     "validation at step 6, best",
                                                     "step 7",
                                                     "step 8",
                                                     "checkpoint.pt at step 8",
                                                     "epoch weights at step 8",
                                                     "epoch 1",
                                                     "stopped: finished, best.pt of step 6"}));
}

TEST(TrainerTest, EarlyStoppingCountsValidationsOfTheChosenMetric) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 20;
  options.valid_every = 2;
  options.best_metric = BestMetric::kChrf;
  options.early_stopping = 2;
  std::size_t calls = 0;
  TrainingRun run =
      make_run(dir.path(), options, copy_pairs(16, 2), scripted_bleu({10, 12, 11, 12}, calls));
  const TrainResult result = run.trainer->run(never);
  EXPECT_EQ(result.reason, StopReason::kEarlyStopped);
  EXPECT_EQ(result.message, "no better validation chrF for 2 validations: stopped early")
      << "12 does not beat 12";
  EXPECT_EQ(result.progress.step, 8);
  EXPECT_EQ(result.progress.best_step, 4);
  EXPECT_DOUBLE_EQ(result.progress.best_score, 32.0);
}

// train.max_time: training stops at the first update that would begin after the budget, saves
// checkpoint.pt there, validates the weights it stopped at (unless that step was just validated),
// averages them with the last epochs and says where it stopped in its end record.
TEST(TrainerTest, ATimeBudgetStopsTrainingThenValidatesAndAveragesAsAtTheEnd) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 1000000;
  options.average_last = 3;
  options.max_time_seconds = 1.5;
  TrainingRun run = make_run(dir.path(), options);
  const TrainResult result = run.trainer->run(never);
  ASSERT_EQ(result.reason, StopReason::kTimeLimit) << result.message;
  const TrainingState& stopped = result.progress;
  EXPECT_GE(stopped.train_seconds, 1.5);
  EXPECT_LT(stopped.train_seconds, 2.5) << "one update of the copy task takes milliseconds";
  ASSERT_GE(stopped.epoch, 3) << "hundreds of updates of 8-batch epochs fit in 1.5 s";
  EXPECT_EQ(result.message, "spent the training time budget of 1.5s (train.max_time) at epoch " +
                                std::to_string(stopped.epoch + 1) + ", batch " +
                                std::to_string(stopped.batch) + ", step " +
                                std::to_string(stopped.step) + "; checkpoint saved");
  const TrainingState saved =
      load_checkpoint(dir.file("checkpoint.pt"), run.model, nullptr, torch::kCPU, false);
  EXPECT_EQ(saved.step, stopped.step);
  EXPECT_EQ(saved.batch, stopped.batch);

  const std::string metrics = dir.file("metrics.jsonl");
  const auto end = records_of(metrics, "end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["reason"], "time_limit");
  EXPECT_EQ(end[0]["epoch"], stopped.epoch);
  EXPECT_EQ(end[0]["step"], stopped.step);
  EXPECT_EQ(end[0]["batch"], stopped.batch);
  // The last validation is of the step training stopped at: an epoch's end, or one of its own.
  const auto epochs = records_of(metrics, "epoch");
  const auto valid = records_of(metrics, "valid");
  if (stopped.batch == 0) {
    EXPECT_TRUE(valid.empty());
    EXPECT_EQ(epochs.back()["step"], stopped.step);
  } else {
    ASSERT_EQ(valid.size(), 1u);
    EXPECT_EQ(valid[0]["step"], stopped.step);
    EXPECT_EQ(valid[0]["epoch"], stopped.epoch + 1);
  }
  const auto average = records_of(metrics, "average");
  ASSERT_EQ(average.size(), 1u);
  EXPECT_EQ(average[0]["checkpoints"], 3)
      << (stopped.batch == 0 ? "the last 3 epochs" : "2 epochs and the last weights");
}

// train.keep_epochs keeps more epoch-K.pt files for `nmt average` than averaged.pt needs, and
// keeps them without averaging; averaged.pt still averages train.average_last of them.
TEST(TrainerTest, KeepEpochsKeepsTheLastEpochsWeightsWhetherOrNotTrainingAverages) {
  struct Case {
    int64_t average_last;
    int64_t keep_epochs;
    std::vector<int> kept;
    size_t average_records;
  };
  for (const Case& expected : {Case{2, 3, {3, 4, 5}, 1}, Case{0, 2, {4, 5}, 0},
                               Case{3, 1, {3, 4, 5}, 1}, Case{0, 0, {}, 0}}) {
    SCOPED_TRACE("average_last " + std::to_string(expected.average_last) + ", keep_epochs " +
                 std::to_string(expected.keep_epochs));
    const std::atomic<bool> never{false};
    testing::ScratchDir dir;
    TrainOptions options = small_options();
    options.epochs = 5;
    options.average_last = expected.average_last;
    options.keep_epochs = expected.keep_epochs;
    TrainingRun run = make_run(dir.path(), options);
    ASSERT_EQ(run.trainer->run(never).reason, StopReason::kFinished);
    std::vector<int> kept;
    for (int epoch = 1; epoch <= 5; ++epoch) {
      if (std::filesystem::exists(RunDir(dir.path()).epoch_weights(epoch))) kept.push_back(epoch);
    }
    EXPECT_EQ(kept, expected.kept);
    const auto average = records_of(dir.file("metrics.jsonl"), "average");
    ASSERT_EQ(average.size(), expected.average_records);
    if (!average.empty()) {
      EXPECT_EQ(average[0]["checkpoints"], expected.average_last);
    }
  }
}

TEST(TrainerTest, AResumedRunSpendsOnlyWhatIsLeftOfItsTimeBudget) {
  const std::atomic<bool> never{false};
  testing::ScratchDir dir;
  TrainOptions options = small_options();
  options.epochs = 1000000;
  options.max_time_seconds = 1.0;
  const TrainResult first = make_run(dir.path(), options).trainer->run(never);
  ASSERT_EQ(first.reason, StopReason::kTimeLimit) << first.message;

  // Nothing left: the resumed run stops before its first update.
  TrainingRun spent = make_run(dir.path(), options);
  spent.trainer->resume(dir.file("checkpoint.pt"));
  const TrainResult again = spent.trainer->run(never);
  EXPECT_EQ(again.reason, StopReason::kTimeLimit);
  EXPECT_EQ(again.progress.step, first.progress.step);
  EXPECT_EQ(again.progress.train_seconds, first.progress.train_seconds);

  // Half a second more: the resumed run trains that, not a whole new budget.
  options.max_time_seconds = 1.5;
  TrainingRun extended = make_run(dir.path(), options);
  extended.trainer->resume(dir.file("checkpoint.pt"));
  const TrainResult rest = extended.trainer->run(never);
  EXPECT_EQ(rest.reason, StopReason::kTimeLimit);
  EXPECT_GT(rest.progress.step, first.progress.step);
  EXPECT_GE(rest.progress.train_seconds, 1.5);
  EXPECT_LT(rest.progress.train_seconds, 2.0)
      << "a budget counted from the resume would end beyond " << first.progress.train_seconds + 1.5;
}

TEST(TrainerTest, BestMetricBleuWithoutAScorerIsAConfigError) {
  TrainOptions options = small_options();
  options.best_metric = BestMetric::kBleu;
  testing::ScratchDir dir;
  model::Transformer model(testing::tiny_options(), 12, 12);
  EXPECT_THROW(
      Trainer(model,
              TrainerSetup{options, RunDir(dir.path()), "{}", torch::kCPU, false, nullptr, {}},
              copy_pairs(8, 1), copy_pairs(4, 2)),
      ConfigError);
}

}  // namespace
}  // namespace nmt::train
