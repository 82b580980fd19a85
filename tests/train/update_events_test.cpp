#include "train/update_events.h"

#include <gtest/gtest.h>

namespace nmt::train {
namespace {

TrainOptions every(int64_t log, int64_t valid, int64_t save) {
  TrainOptions options;
  options.log_every = log;
  options.valid_every = valid;
  options.save_every = save;
  return options;
}

TEST(EventsAfterTest, LogsEveryLogEveryStepsAndAtEveryEpochEnd) {
  const TrainOptions options = every(50, 0, 0);
  EXPECT_TRUE(events_after(options, 50, false).is_log);
  EXPECT_TRUE(events_after(options, 100, false).is_log);
  EXPECT_FALSE(events_after(options, 49, false).is_log);
  EXPECT_TRUE(events_after(options, 49, true).is_log);
  EXPECT_TRUE(events_after(options, 49, true).is_epoch_end);
  EXPECT_FALSE(events_after(options, 50, false).is_epoch_end);
}

TEST(EventsAfterTest, ValidatesOnlyWithValidEvery) {
  EXPECT_FALSE(events_after(every(50, 0, 0), 100, true).is_validation);
  EXPECT_TRUE(events_after(every(50, 25, 0), 100, false).is_validation);
  EXPECT_FALSE(events_after(every(50, 25, 0), 110, false).is_validation);
}

// A validation saves checkpoint.pt itself and so does an epoch's end: a save falls only where
// neither does.
TEST(EventsAfterTest, SavesEverySaveEveryStepsWhereNothingElseSaves) {
  EXPECT_TRUE(events_after(every(50, 0, 30), 60, false).is_save);
  EXPECT_FALSE(events_after(every(50, 0, 30), 61, false).is_save);
  EXPECT_FALSE(events_after(every(50, 0, 30), 60, true).is_save);
  EXPECT_FALSE(events_after(every(50, 20, 30), 60, false).is_save);
  EXPECT_TRUE(events_after(every(50, 20, 30), 60, false).is_validation);
  EXPECT_FALSE(events_after(every(50, 0, 0), 60, false).is_save);
}

UpdateRecord update(double loss_sum, int64_t tokens, double seconds) {
  return {{at::full({}, loss_sum, at::kDouble), at::full({}, tokens, at::kLong)},
          tokens,
          seconds,
          loss_sum / static_cast<double>(tokens)};
}

TrainingState after(int64_t epoch, int64_t batch, int64_t step, int64_t tokens, double seconds) {
  TrainingState progress;
  progress.epoch = epoch;
  progress.batch = batch;
  progress.step = step;
  progress.target_tokens = tokens;
  progress.train_seconds = seconds;
  return progress;
}

TEST(ProgressTrackerTest, ALogEventReportsItsWindowAndStartsANewOne) {
  TrainOptions options = every(2, 0, 0);
  options.epochs = 2;
  ProgressTracker tracker(options, c10::Device(c10::kCPU));
  tracker.start_epoch(10, 1);
  const UpdateEvents quiet = events_after(options, 1, false);
  const ProgressTracker::Report first =
      tracker.after_update(after(0, 1, 1, 100, 1.0), update(300.0, 100, 1.0), quiet);
  EXPECT_FALSE(first.window);
  EXPECT_DOUBLE_EQ(first.line.loss, 3.0);  // the update's own loss until a window ends
  EXPECT_DOUBLE_EQ(first.line.tokens_per_second, 100.0);
  EXPECT_EQ(first.line.epoch, 1);
  EXPECT_EQ(first.line.batches, 10);

  const ProgressTracker::Report second = tracker.after_update(
      after(0, 2, 2, 400, 2.0), update(300.0, 300, 1.0), events_after(options, 2, false));
  ASSERT_TRUE(second.window);
  EXPECT_DOUBLE_EQ(second.window->loss, 600.0 / 400.0);  // per token over the window
  EXPECT_DOUBLE_EQ(second.window->tokens_per_second, 400.0 / 2.0);
  EXPECT_DOUBLE_EQ(second.line.loss, second.window->loss);
  // Updates left: 8 in this epoch and 10 in the next, at the session's 1.0 s per update.
  EXPECT_DOUBLE_EQ(second.line.eta_seconds, 18.0);

  const ProgressTracker::Report third =
      tracker.after_update(after(0, 3, 3, 450, 3.0), update(100.0, 50, 1.0), quiet);
  EXPECT_FALSE(third.window);
  const ProgressTracker::Report fourth = tracker.after_update(
      after(0, 4, 4, 500, 4.0), update(100.0, 50, 1.0), events_after(options, 4, false));
  ASSERT_TRUE(fourth.window);
  EXPECT_DOUBLE_EQ(fourth.window->loss, 200.0 / 100.0);  // the new window only (all: 800 / 500)
}

TEST(ProgressTrackerTest, TimeLeftCountsUpdatesOfSeveralBatchesAndStopsAtTheBudget) {
  TrainOptions options = every(50, 0, 0);
  options.epochs = 3;
  ProgressTracker tracker(options, c10::Device(c10::kCPU));
  tracker.start_epoch(9, 2);  // 5 updates an epoch, the last of one batch
  const UpdateEvents quiet = events_after(options, 1, false);
  // After 2 batches: 4 updates left in this epoch (7 batches) and 5 in each of the next two.
  EXPECT_DOUBLE_EQ(
      tracker.after_update(after(0, 2, 1, 10, 2.0), update(1.0, 10, 2.0), quiet).line.eta_seconds,
      14 * 2.0);
  options.max_time_seconds = 10.0;
  ProgressTracker budgeted(options, c10::Device(c10::kCPU));
  budgeted.start_epoch(9, 2);
  EXPECT_DOUBLE_EQ(
      budgeted.after_update(after(0, 2, 1, 10, 2.0), update(1.0, 10, 2.0), quiet).line.eta_seconds,
      8.0);
}

}  // namespace
}  // namespace nmt::train
