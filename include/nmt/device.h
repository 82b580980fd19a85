// Where tensors live and how many CPU threads LibTorch uses. `cli` calls these once per command.
// Throws ConfigError for a device that does not exist; never logs.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace nmt {

// "cpu", "cuda", "cuda:N" or "auto" (the first CUDA device when one is usable, else the CPU).
c10::Device resolve_device(const std::string& name);

// Makes a CUDA device the process's current one (where unqualified CUDA calls, streams and
// synchronisations go); nothing for the CPU. Each rank of a job calls it for its own GPU.
void make_current_device(const c10::Device& device);

// Sets LibTorch's intra-op (and OpenMP/BLAS) threads; 0 means one per hardware thread. Returns
// the number set.
int64_t set_threads(int64_t threads);

// Keeps memory the process frees for reuse instead of handing it back to the kernel. Every training
// or decoding step allocates and frees the same large tensors; with glibc's defaults each one over
// 32 MiB is a fresh mmap whose pages fault in again on first touch, which cost 40% of a CPU
// training step in a profile of the first CPU version (docs/performance.md, Memory). No-op
// outside glibc.
void keep_freed_memory();

// "cpu (2 threads)" or "cuda:0 (NVIDIA H100 80GB HBM3)".
std::string describe_device(const c10::Device& device);

}  // namespace nmt
