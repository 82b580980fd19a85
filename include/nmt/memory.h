// Memory the machine can give and what to say when it runs out. Torch-free; never throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace nmt {

// Bytes of physical memory this process can still take: /proc/meminfo's MemAvailable, lowered
// to what the cgroups' limits leave (containers, Slurm, systemd) where one is set; nullopt where
// neither can be read. (An address-space limit, ulimit -v, is left to the allocator's own failure.)
std::optional<int64_t> available_host_memory();

// The least that a memory limit leaves on the groups of proc_self_cgroup or above them (as
// for_each_cgroup_up walks them under cgroup_mount): v2's memory.max less memory.current, or v1's
// memory.limit_in_bytes less memory.usage_in_bytes, 0 where usage is over the limit; nullopt
// where no group sets one.
std::optional<int64_t> cgroup_memory_headroom(std::string_view proc_self_cgroup,
                                              const std::filesystem::path& cgroup_mount);

// For an allocator's failure message (LibTorch's "DefaultCPUAllocator: can't allocate memory:
// you tried to allocate N bytes ..." or CUDA's "CUDA out of memory. Tried to allocate ..."), one
// line saying what ran out and which settings to change; nullopt for any other message.
std::optional<std::string> describe_out_of_memory(const std::string& failure);

}  // namespace nmt
