// Where tensors live and how many CPU threads LibTorch uses. `cli` calls these once per command.
// Throws ConfigError for a device that does not exist; never logs.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace nmt {

// "cpu", "cuda", "cuda:N" or "auto" (the first CUDA device when one is usable, else the CPU); a
// ConfigError naming `key` when that device is not usable here.
c10::Device resolve_device(const std::string& name, const std::string& key);

// Makes a CUDA device the process's current one (where unqualified CUDA calls, streams and
// synchronisations go); nothing for the CPU. Each rank of a job calls it for its own GPU.
void make_current_device(const c10::Device& device);

// Sets this thread's LibTorch intra-op threads (its OpenMP team, OpenBLAS's too): `threads`, or
// one per hardware thread for 0. Returns the number. The only place nmt sets a thread count
// (scripts/check-code-rules.py keeps it so). A count the thread has already is not set again:
// at::set_num_threads re-creates LibTorch's process-wide pthreadpool even for the count it has,
// and the new pool's threads spin for milliseconds before they sleep; a server that set and
// restored the count around every request lost more time to them than to decoding.
int64_t set_threads(int64_t threads);

// set_threads for a scope; the thread's previous count after it.
class ThreadCountScope {
 public:
  explicit ThreadCountScope(int64_t threads);
  ~ThreadCountScope();
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  int64_t previous_;
};

// Keeps memory the process frees for reuse instead of handing it back to the kernel. Every training
// or decoding step allocates and frees the same large tensors; with glibc's defaults each one over
// 32 MiB is a fresh mmap whose pages fault in again on first touch, which cost 40% of a CPU
// training step in a profile of the first CPU version (docs/performance.md, Memory). No-op
// outside glibc.
void keep_freed_memory();

// "cpu (2 threads)" or "cuda:0 (NVIDIA H100 80GB HBM3)".
std::string describe_device(const c10::Device& device);

}  // namespace nmt
