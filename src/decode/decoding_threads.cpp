#include "nmt/decode/decoding_threads.h"

#include <ATen/ThreadLocalState.h>

#include <algorithm>
#include <utility>

#include "nmt/device.h"

namespace nmt::decode {

DecodingThreads::DecodingThreads(std::size_t translators, int64_t threads) : threads_(threads) {
  const std::size_t count = std::max<std::size_t>(1, translators);
  const std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < count; ++i) {
    workers_.push_back(std::make_unique<Worker>());
    Worker& worker = *workers_.back();
    idle_.push_back(&worker);
    worker.thread = std::thread([this, &worker] { work(worker); });
  }
}

DecodingThreads::~DecodingThreads() {
  {
    const std::lock_guard<std::mutex> one_call(call_mutex_);
    const std::lock_guard<std::mutex> lock(mutex_);
    is_closing_ = true;
  }
  for (const std::unique_ptr<Worker>& worker : workers_) worker->wake.notify_one();
  for (const std::unique_ptr<Worker>& worker : workers_) worker->thread.join();
}

void DecodingThreads::work(Worker& me) {
  set_threads(threads_);  // this thread's OpenMP team, for OpenBLAS too
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    me.wake.wait(lock, [&] { return is_closing_ || me.is_called; });
    if (is_closing_) return;
    me.is_called = false;
    lock.unlock();
    take_tasks();
    lock.lock();
    idle_.push_back(&me);
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
  // The workers idle for the shortest time: their caches and buffers are the warmest. One that
  // finds no task left (another took it first) is done with the call.
  working_ = std::min(count, idle_.size());
  for (std::size_t i = 0; i < working_; ++i) {
    Worker& worker = *idle_.back();
    idle_.pop_back();
    worker.is_called = true;
    worker.wake.notify_one();
  }
  call_ended_.wait(lock, [&] { return working_ == 0; });
  task_ = nullptr;
  caller_state_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace nmt::decode
