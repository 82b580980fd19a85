// Memory the machine can give and what to say when it runs out. Torch-free; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nmt {

// Bytes of physical memory this process can still take: /proc/meminfo's MemAvailable, lowered
// to the cgroup's remaining limit (containers, Slurm) where one is set; nullopt where neither can
// be read. (An address-space limit, ulimit -v, is left to the allocator's own failure.)
std::optional<int64_t> available_host_memory();

// For an allocator's failure message (LibTorch's "DefaultCPUAllocator: can't allocate memory:
// you tried to allocate N bytes ..." or CUDA's "CUDA out of memory. Tried to allocate ..."), one
// line saying what ran out and which settings to change; nullopt for any other message.
std::optional<std::string> describe_out_of_memory(const std::string& failure);

}  // namespace nmt
