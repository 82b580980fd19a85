#include "nmt/decode/decoding_threads.h"

#include <ATen/ThreadLocalState.h>

#include <algorithm>
#include <utility>

#include "nmt/device.h"

namespace nmt::decode {

DecodingThreads::DecodingThreads(std::size_t translators, int64_t threads) : threads_(threads) {
  const std::size_t count = std::max<std::size_t>(1, translators);
  workers_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
}

DecodingThreads::~DecodingThreads() {
  {
    const std::lock_guard<std::mutex> one_call(call_mutex_);
    const std::lock_guard<std::mutex> lock(mutex_);
    is_closing_ = true;
  }
  call_started_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void DecodingThreads::work() {
  set_threads(threads_);  // this thread's OpenMP team, for OpenBLAS too
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    call_started_.wait(lock, [&] { return is_closing_ || call_ != seen; });
    if (is_closing_) return;
    seen = call_;
    lock.unlock();
    take_tasks();
    lock.lock();
    if (--working_ == 0) call_ended_.notify_one();
  }
}

void DecodingThreads::take_tasks() {
  const at::ThreadLocalStateGuard as_the_caller(*caller_state_);
  while (true) {
    std::size_t i = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= count_) return;
      i = next_++;
    }
    try {
      (*task_)(i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_ = count_;
    }
  }
}

void DecodingThreads::run(std::size_t count, const std::function<void(std::size_t)>& task) {
  const std::lock_guard<std::mutex> one_call(call_mutex_);
  const at::ThreadLocalState caller_state;
  std::unique_lock<std::mutex> lock(mutex_);
  count_ = count;
  task_ = &task;
  caller_state_ = &caller_state;
  next_ = 0;
  error_ = nullptr;
  working_ = workers_.size();
  ++call_;
  call_started_.notify_all();
  call_ended_.wait(lock, [&] { return working_ == 0; });
  task_ = nullptr;
  caller_state_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace nmt::decode
