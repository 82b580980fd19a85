// The threads that decode on the CPU: `translators` workers that live as long as their Translator
// (a process's, or a server's), each running LibTorch's operations on `threads` threads of its
// own, set once when it starts. A decoding step is many small operations; two threads sharing
// each of them leave a core idle much of the time, two batches side by side do not
// (docs/performance.md). Workers that stay keep their OpenMP teams and BLAS buffers from one call
// to the next, where threads started per call built them anew, and no call sets any thread's
// count. Tasks run under their caller's LibTorch thread-local state (grad and inference mode, the
// profiler), as at::launch runs them. A call wakes the workers that ended their last call most
// recently, and no more than it has tasks: a server's one-sentence batches go to one worker, not to
// each in turn.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace at {
class ThreadLocalState;
}  // namespace at

namespace nmt::decode {

class DecodingThreads {
 public:
  DecodingThreads(std::size_t translators, int64_t threads);
  // Waits for the call in progress, then ends the workers.
  ~DecodingThreads();
  DecodingThreads(const DecodingThreads&) = delete;
  DecodingThreads& operator=(const DecodingThreads&) = delete;

  std::size_t translators() const { return workers_.size(); }
  int64_t threads() const { return threads_; }

  // Calls task(i) for every i below count, spread over the workers (each takes the next i when it
  // is free), and returns when all have returned. The first exception a task throws keeps the
  // workers from taking more and is rethrown here. Calls from several threads take turns.
  void run(std::size_t count, const std::function<void(std::size_t)>& task);

 private:
  struct Worker {
    std::condition_variable wake;
    bool is_called = false;  // woken for the current call
    std::thread thread;
  };

  void work(Worker& me);
  // Takes tasks of the current call until none is left.
  void take_tasks();

  int64_t threads_;
  std::mutex call_mutex_;  // one call at a time
  std::mutex mutex_;       // guards what follows, up to the workers
  std::condition_variable call_ended_;
  std::size_t count_ = 0;
  const std::function<void(std::size_t)>* task_ = nullptr;
  const at::ThreadLocalState* caller_state_ = nullptr;
  std::size_t next_ = 0;     // the next task to take
  std::size_t working_ = 0;  // workers called for the current call, not yet done with it
  std::exception_ptr error_;
  bool is_closing_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;  // the worker that ended a call last at the back
};

}  // namespace nmt::decode
