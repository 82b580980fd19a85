// The cgroups a process belongs to, for the limits a container, Slurm or systemd sets on them
// (CPU quota, memory). A limit set on a group above the process's own holds too, so each reader
// looks at every group from the process's own up to its hierarchy's root. Torch-free; never
// throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace nmt {

// Calls visit(group directory) for each group this process is in that carries `controller`
// ("cpu", "memory"), and for each group above it up to its hierarchy's root, given the text of
// /proc/self/cgroup (cgroup v2's "0::/a/b" and v1's "4:cpu,cpuacct:/a/b" lines) and where the
// hierarchies are mounted (/sys/fs/cgroup): for "0::/a/b", MOUNT/a/b, MOUNT/a and MOUNT; for v1,
// the same under MOUNT/cpu,cpuacct. Malformed lines and relative paths are skipped. Inside a
// container the path is often "/", its own group.
void for_each_cgroup_up(std::string_view proc_self_cgroup,
                        const std::filesystem::path& cgroup_mount,
                        std::string_view controller,
                        const std::function<void(const std::filesystem::path& group)>& visit);

// A cgroup file's whole number ("150000\n"), or nullopt for anything else ("max", "-", "12 MiB").
std::optional<int64_t> cgroup_number(std::string_view text);

// The whole text of a file, or nullopt where it cannot be read.
std::optional<std::string> read_cgroup_file(const std::filesystem::path& path);

// The smaller of two optional limits, either one where the other is unset.
template <class T>
std::optional<T> smaller_limit(std::optional<T> a, std::optional<T> b) {
  if (!a) return b;
  if (!b) return a;
  return *a < *b ? a : b;
}

}  // namespace nmt
