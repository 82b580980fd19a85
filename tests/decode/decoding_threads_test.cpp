#include "nmt/decode/decoding_threads.h"

#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>

#include "nmt/device.h"

namespace nmt::decode {
namespace {

TEST(DecodingThreadsTest, RunsEveryTaskOnceInEachCall) {
  DecodingThreads workers(2, 1);
  std::vector<std::atomic<int>> runs(100);
  for (int call = 1; call <= 3; ++call) {
    workers.run(runs.size(), [&](std::size_t i) { ++runs[i]; });
    for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i], call) << i;
  }
  workers.run(0, [](std::size_t) { FAIL() << "no task to run"; });
}

// A call with one task (a server's one-sentence batch) goes to the worker that ended the last call,
// every time: the other workers stay asleep and its caches stay warm.
TEST(DecodingThreadsTest, OneTaskGoesToTheWorkerThatRanLast) {
  DecodingThreads workers(3, 1);
  std::set<std::thread::id> seen;
  for (int call = 0; call < 20; ++call) {
    workers.run(1, [&seen](std::size_t) { seen.insert(std::this_thread::get_id()); });
  }
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 0u) << "a worker runs it, not the caller";
}

TEST(DecodingThreadsTest, TheSameWorkersDecodeEveryCallWithTheirOwnThreadCount) {
  const ThreadCountScope caller(2);
  const c10::InferenceMode inference;
  DecodingThreads workers(2, 1);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> wrong_count{0};
  std::atomic<int> outside_inference{0};
  for (int call = 0; call < 20; ++call) {
    workers.run(8, [&](std::size_t) {
      if (at::get_num_threads() != 1) ++wrong_count;
      if (!c10::InferenceMode::is_enabled()) ++outside_inference;
      const std::lock_guard<std::mutex> lock(mutex);
      seen.insert(std::this_thread::get_id());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
  }
  EXPECT_LE(seen.size(), 2u) << "threads started per call would show as up to 40";
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 0u) << "the caller only waits";
  EXPECT_EQ(wrong_count, 0);
  EXPECT_EQ(outside_inference, 0) << "the caller's inference mode";
  EXPECT_EQ(at::get_num_threads(), 2) << "no call sets the caller's count";
}

TEST(DecodingThreadsTest, TasksRunUnderTheirCallersThreadLocalState) {
  DecodingThreads workers(2, 1);
  std::atomic<int> in_inference{0};
  std::atomic<int> with_grad{0};
  const auto count_modes = [&](std::size_t) {
    in_inference += c10::InferenceMode::is_enabled();
    with_grad += at::GradMode::is_enabled();
  };
  workers.run(4, count_modes);
  EXPECT_EQ(in_inference, 0);
  EXPECT_EQ(with_grad, 4);
  {
    const c10::InferenceMode inference;
    workers.run(4, count_modes);
  }
  EXPECT_EQ(in_inference, 4) << "the same workers follow the caller";
  EXPECT_EQ(with_grad, 4) << "inference mode turns gradients off";
}

TEST(DecodingThreadsTest, AFailingTaskEndsTheCallWithItsErrorAndTheWorkersStay) {
  DecodingThreads workers(2, 1);
  std::atomic<int> started{0};
  try {
    workers.run(1000, [&](std::size_t i) {
      ++started;
      if (i == 3) throw std::runtime_error("batch 3 failed");
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
    FAIL() << "expected the task's error";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "batch 3 failed");
  }
  EXPECT_LT(started, 1000) << "no task is taken after the failure";
  std::atomic<int> after{0};
  workers.run(10, [&](std::size_t) { ++after; });
  EXPECT_EQ(after, 10);
}

TEST(DecodingThreadsTest, CallsFromSeveralThreadsTakeTurns) {
  DecodingThreads workers(2, 1);
  std::atomic<int> inside{0};
  std::atomic<int> most_inside{0};
  std::atomic<int> done{0};
  const auto caller = [&] {
    for (int call = 0; call < 10; ++call) {
      workers.run(4, [&](std::size_t) {
        const int now = ++inside;
        int most = most_inside;
        while (now > most && !most_inside.compare_exchange_weak(most, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        --inside;
        ++done;
      });
    }
  };
  std::thread first(caller);
  std::thread second(caller);
  first.join();
  second.join();
  EXPECT_EQ(done, 80);
  EXPECT_LE(most_inside, 2) << "two workers, whatever the number of callers";
}

}  // namespace
}  // namespace nmt::decode
