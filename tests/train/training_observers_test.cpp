#include "nmt/train/training_observers.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "captured_log.h"
#include "nmt/io.h"
#include "test_utils.h"

namespace nmt::train {
namespace {

using testing::CapturedLog;

ValidationResult loss_of(double loss) {
  ValidationResult result;
  result.loss = loss;
  result.nll = loss - 0.5;
  result.tokens = 100;
  return result;
}

ValidationResult bleu_of(double bleu) {
  ValidationResult result = loss_of(3.0);
  result.translation = TranslationScores{bleu, bleu + 20.0, 16};
  return result;
}

ValidationDone validation_at(int64_t step, ValidationResult result) {
  ValidationDone validation;
  validation.epoch = 1;
  validation.step = step;
  validation.result = result;
  return validation;
}

ProgressLine line_at(int64_t step, double loss) {
  return {1, 3, step, 8, step, loss, 2e-3, 1500.0, 65.0};
}

TEST(BestKeeperTest, WritesBestPtWhenAValidationImprovesAndCountsTheOnesThatDoNot) {
  int saves = 0;
  BestKeeper keeper(BestMetric::kLoss, {}, [&saves] { ++saves; });
  EXPECT_FALSE(keeper.best()) << "nothing validated yet";
  const std::vector<double> losses = {2.0, 2.5, 2.1, 1.9, 1.9};
  const std::vector<bool> best = {true, false, false, true, false};
  const std::vector<int64_t> waited = {0, 1, 2, 0, 1};
  for (std::size_t i = 0; i < losses.size(); ++i) {
    ValidationDone validation = validation_at(10 * static_cast<int64_t>(i + 1), loss_of(losses[i]));
    keeper.judge(validation);
    EXPECT_EQ(validation.is_best, best[i]) << i;
    EXPECT_EQ(validation.validations_without_improvement, waited[i]) << i;
  }
  EXPECT_EQ(saves, 2);
  ASSERT_TRUE(keeper.best());
  EXPECT_EQ(keeper.best()->score, 1.9);
  EXPECT_EQ(keeper.best()->step, 40);
  EXPECT_EQ(keeper.state().validations_without_improvement, 1);
}

TEST(BestKeeperTest, BestPtIsWrittenAfterTheKeeperTookTheNewBest) {
  BestKeeper::State seen_by_save;
  BestKeeper* keeper_pointer = nullptr;
  BestKeeper keeper(BestMetric::kBleu, {}, [&] { seen_by_save = keeper_pointer->state(); });
  keeper_pointer = &keeper;
  ValidationDone validation = validation_at(12, bleu_of(21.5));
  keeper.judge(validation);
  EXPECT_EQ(seen_by_save.best_score, 21.5) << "best.pt must hold its own score";
  EXPECT_EQ(seen_by_save.best_step, 12);
}

TEST(BestKeeperTest, BleuAndChrfPreferHigherScores) {
  BestKeeper bleu(BestMetric::kBleu, {}, [] {});
  BestKeeper chrf(BestMetric::kChrf, {}, [] {});
  for (const double score : {20.0, 25.0, 24.0}) {
    ValidationDone by_bleu = validation_at(1, bleu_of(score));
    ValidationDone by_chrf = validation_at(1, bleu_of(score));
    bleu.judge(by_bleu);
    chrf.judge(by_chrf);
    EXPECT_EQ(by_bleu.is_best, score != 24.0) << score;
    EXPECT_EQ(by_chrf.is_best, score != 24.0) << score;
  }
  EXPECT_EQ(bleu.best()->score, 25.0);
  EXPECT_EQ(chrf.best()->score, 45.0);
}

TEST(BestKeeperTest, AValidationWithoutPairsOrWithANonFiniteLossChangesNothing) {
  int saves = 0;
  BestKeeper keeper(BestMetric::kLoss, {2.0, 5, 1}, [&saves] { ++saves; });
  ValidationDone empty = validation_at(10, ValidationResult{});
  keeper.judge(empty);
  ValidationDone diverged = validation_at(11, loss_of(std::nan("")));
  keeper.judge(diverged);
  EXPECT_FALSE(empty.is_best);
  EXPECT_FALSE(diverged.is_best);
  EXPECT_EQ(diverged.validations_without_improvement, 1) << "the count carried, not raised";
  EXPECT_EQ(saves, 0);
  EXPECT_EQ(keeper.best()->step, 5);
}

TEST(BestKeeperTest, AResumedKeeperJudgesAsTheUninterruptedOne) {
  BestKeeper resumed(BestMetric::kLoss, {1.5, 40, 2}, [] {});
  ValidationDone worse = validation_at(60, loss_of(1.6));
  resumed.judge(worse);
  EXPECT_FALSE(worse.is_best);
  EXPECT_EQ(worse.validations_without_improvement, 3);
  EXPECT_EQ(resumed.best()->score, 1.5);
  EXPECT_EQ(resumed.best()->step, 40);
}

TEST(EarlyStoppingTest, StopsWhenPatienceIsSpentAndSaysWhatItCounted) {
  EarlyStopping by_epochs(2, BestMetric::kLoss, /*counts_validations=*/false);
  EarlyStopping by_validations(3, BestMetric::kChrf, /*counts_validations=*/true);
  ValidationDone validation = validation_at(8, loss_of(2.0));
  validation.validations_without_improvement = 1;
  EXPECT_FALSE(by_epochs.validation_done(validation));
  validation.validations_without_improvement = 2;
  const std::optional<TrainStop> stop = by_epochs.validation_done(validation);
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->reason, StopReason::kEarlyStopped);
  EXPECT_EQ(stop->message, "no better validation loss for 2 epochs: stopped early");
  EXPECT_FALSE(by_validations.validation_done(validation));
  validation.validations_without_improvement = 3;
  EXPECT_EQ(by_validations.validation_done(validation)->message,
            "no better validation chrF for 3 validations: stopped early");
}

TEST(EarlyStoppingTest, NoPatienceNeverStopsAndAnEpochWithoutValidationIsNoVerdict) {
  EarlyStopping never(0, BestMetric::kLoss, false);
  ValidationDone validation = validation_at(8, loss_of(2.0));
  validation.validations_without_improvement = 100;
  EXPECT_FALSE(never.validation_done(validation));

  EarlyStopping patient(1, BestMetric::kLoss, false);
  EpochDone epoch;
  EXPECT_FALSE(patient.epoch_done(epoch)) << "valid_every: validations come as their own events";
  epoch.validation = validation;
  EXPECT_TRUE(patient.epoch_done(epoch));
}

TEST(EpochWeightsKeptTest, RemovesTheEpochThatFellOutOfTheKeptOnes) {
  testing::ScratchDir dir;
  const RunDir run(dir.path());
  for (int epoch = 1; epoch <= 3; ++epoch)
    write_text_atomically(run.epoch_weights(epoch), "weights");
  EpochWeightsKept kept(run, 2);
  kept.checkpoint_saved({CheckpointKind::kLatest, 3, 30});
  kept.checkpoint_saved({CheckpointKind::kBest, 3, 30});
  EXPECT_TRUE(std::filesystem::exists(run.epoch_weights(1))) << "only epoch files count";
  kept.checkpoint_saved({CheckpointKind::kEpochWeights, 3, 30});
  EXPECT_FALSE(std::filesystem::exists(run.epoch_weights(1)));
  EXPECT_TRUE(std::filesystem::exists(run.epoch_weights(2)));
  EXPECT_TRUE(std::filesystem::exists(run.epoch_weights(3)));
  kept.checkpoint_saved({CheckpointKind::kEpochWeights, 1, 10});  // nothing older: no error
}

std::vector<nlohmann::json> metrics_lines(const std::string& path) {
  std::vector<nlohmann::json> records;
  for (const std::string& line : read_lines(path)) records.push_back(nlohmann::json::parse(line));
  return records;
}

TEST(MetricsWriterTest, WritesOneRecordPerEventWithTheEventsFields) {
  testing::ScratchDir dir;
  const std::string path = dir.file("metrics.jsonl");
  {
    MetricsWriter writer(path);
    writer.run_started({2, 16, 64, 16, "cpu", std::string("Some CPU, 2 threads")});
    writer.step_done({line_at(17, 2.5), std::nullopt, 3.0});
    writer.step_done({line_at(18, 2.5), line_at(18, 2.25), 3.5});
    ValidationDone validation = validation_at(18, bleu_of(21.0));
    validation.is_best = true;
    writer.validation_done(validation);
    EpochDone epoch{3, 5, 24, 2.2, 1e-3, 4.5, 3000, std::nullopt};
    writer.epoch_done(epoch);
    epoch.validation = validation;
    writer.epoch_done(epoch);
    writer.average_done({3, false, loss_of(2.0), true, std::nullopt});
    writer.stopped({StopReason::kEarlyStopped, "stopped early", 3, 24, 0, 4.5,
                    BestSoFar{BestMetric::kLoss, 1.9, 18}});
  }
  const std::vector<nlohmann::json> records = metrics_lines(path);
  ASSERT_EQ(records.size(), 7u) << "a step without a window writes nothing";
  EXPECT_EQ(records[0]["event"], "start");
  EXPECT_EQ(records[0]["step"], 16);
  EXPECT_EQ(records[0]["processor"], "Some CPU, 2 threads");
  EXPECT_EQ(records[1]["event"], "train");
  EXPECT_EQ(records[1]["step"], 18);
  EXPECT_EQ(records[1]["loss"], 2.25) << "the window's loss, not the status line's";
  EXPECT_EQ(records[1]["train_seconds"], 3.5);
  EXPECT_GT(records[1]["rss_mib"].get<double>(), 0.0);
  EXPECT_EQ(records[2]["event"], "valid");
  EXPECT_EQ(records[2]["is_best"], true);
  EXPECT_EQ(records[2]["valid_bleu"], 21.0);
  EXPECT_EQ(records[2]["valid_chrf"], 41.0);
  EXPECT_DOUBLE_EQ(records[2]["valid_ppl"].get<double>(), std::exp(2.5));
  EXPECT_EQ(records[3]["event"], "epoch");
  EXPECT_FALSE(records[3].contains("valid_loss"));
  EXPECT_EQ(records[3]["target_tokens"], 3000);
  EXPECT_EQ(records[4]["valid_loss"], 3.0);
  EXPECT_EQ(records[4]["is_best"], true);
  EXPECT_EQ(records[5]["event"], "average");
  EXPECT_EQ(records[5]["kept"], true);
  EXPECT_EQ(records[6]["event"], "end");
  EXPECT_EQ(records[6]["reason"], "early_stopped");
  EXPECT_EQ(records[6]["best_metric"], "loss");
  EXPECT_EQ(records[6]["best_valid_loss"], 1.9);
  EXPECT_EQ(records[6]["best_step"], 18);
}

TEST(ConsoleReportTest, LogsWindowsValidationsEpochsAndBestPt) {
  CapturedLog log;
  ConsoleReport console(/*is_terminal=*/false);
  console.step_done({line_at(4, 2.5), std::nullopt, 1.0});
  console.step_done({line_at(5, 2.5), line_at(5, 2.25), 1.2});
  ValidationDone validation = validation_at(5, bleu_of(21.0));
  validation.is_best = true;
  console.validation_done(validation);
  EpochDone epoch{1, 3, 8, 2.2, 1e-3, 65.0, 3000, std::nullopt};
  console.epoch_done(epoch);
  epoch.validation = validation;
  epoch.validation->is_best = false;
  console.epoch_done(epoch);
  console.average_done({3, true, loss_of(2.0), false, BestSoFar{BestMetric::kBleu, 21.0, 5}});
  console.stopped({StopReason::kFinished, "trained 3 epochs", 3, 24, 0, 70.0,
                   BestSoFar{BestMetric::kBleu, 21.0, 5}});
  EXPECT_EQ(log.text(),
            "epoch 1/3 batch 5/8 step 5 loss 2.2500 lr 0.002 1500 tgt tok/s ETA 1:05\n"
            "step 5 (epoch 1): valid loss 3.0000 (ppl 12.18), BLEU 21.00, chrF 41.00, best so "
            "far\n"
            "epoch 1/3: train loss 2.2000, 8 steps\n"
            "epoch 1/3: train loss 2.2000, valid loss 3.0000 (ppl 12.18), BLEU 21.00, chrF 41.00, "
            "8 steps, 1:05\n"
            "the mean of the last 2 epochs and the weights training stopped at (valid loss 2.0000 "
            "(ppl 4.48)) is not better than best.pt (validation BLEU 21.0000): not kept\n"
            "best.pt: step 5, validation BLEU 21.0000\n");
}

// Records what it is told, and asks for a stop after the validation of one step.
class Recorder final : public TrainingObserver {
 public:
  explicit Recorder(std::vector<std::string>& heard, int64_t stop_at, std::string name)
      : heard_(heard), stop_at_(stop_at), name_(std::move(name)) {}
  std::optional<TrainStop> validation_done(const ValidationDone& event) override {
    heard_.push_back(name_ + " heard step " + std::to_string(event.step));
    if (event.step != stop_at_) return std::nullopt;
    return TrainStop{StopReason::kEarlyStopped, name_};
  }

 private:
  std::vector<std::string>& heard_;
  int64_t stop_at_;
  std::string name_;
};

TEST(TrainingObserversTest, EveryObserverHearsEachEventInOrderAndTheFirstStopWins) {
  std::vector<std::string> heard;
  TrainingObservers observers;
  observers.add(std::make_shared<Recorder>(heard, 0, "first"));
  observers.add(std::make_shared<Recorder>(heard, 2, "second"));
  observers.add(std::make_shared<Recorder>(heard, 2, "third"));
  EXPECT_FALSE(observers.validation_done(validation_at(1, loss_of(2.0))));
  const std::optional<TrainStop> stop = observers.validation_done(validation_at(2, loss_of(2.0)));
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->message, "second");
  EXPECT_EQ(heard, (std::vector<std::string>{"first heard step 1", "second heard step 1",
                                             "third heard step 1", "first heard step 2",
                                             "second heard step 2", "third heard step 2"}));
}

}  // namespace
}  // namespace nmt::train
