// How many CPUs this process can keep busy: what "0 = all cores" means for every thread count nmt
// chooses itself. std::thread::hardware_concurrency() counts the machine's online CPUs, but a
// process started under taskset or numactl, in a container's cpuset, or with a cgroup CPU quota
// (docker --cpus, Kubernetes CPU limits, systemd's CPUQuota) may use fewer, and there a thread
// for each of the machine's CPUs only waits for its turn. Torch-free; never throws.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace nmt {

// The CPUs of this process's affinity mask, bounded by its cgroups' CPU quota rounded up; at
// least 1. Read anew at each call: a process can be moved.
int usable_cpu_count();

// usable_cpu_count's rule: the affinity's CPUs, or fewer where a quota is set (1.5 CPUs: 2).
int usable_cpus(int affinity_cpus, std::optional<double> quota);

// A cgroup v2 cpu.max ("150000 100000": 1.5 CPUs); nullopt for "max ..." or text that is not one.
std::optional<double> cpu_quota_from_cpu_max(std::string_view cpu_max);

// A cgroup v1 quota (cpu.cfs_quota_us and cpu.cfs_period_us: "50000" and "100000", 0.5 CPUs);
// nullopt for -1 (none) or text that is not one.
std::optional<double> cpu_quota_from_cfs(std::string_view quota_us, std::string_view period_us);

// The smallest CPU quota set on the groups of proc_self_cgroup or above them (as
// for_each_cgroup_up walks them under cgroup_mount): cpu.max, or v1's cpu controller's files;
// nullopt where none is set.
std::optional<double> cgroup_cpu_quota(std::string_view proc_self_cgroup,
                                       const std::filesystem::path& cgroup_mount);

}  // namespace nmt
