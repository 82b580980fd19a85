#include "nmt/cpu_count.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>

#include "nmt/cgroup.h"

namespace nmt {
namespace {

std::optional<double> quota(int64_t quota_us, int64_t period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  return static_cast<double>(quota_us) / static_cast<double>(period_us);
}

// The quota a group's files set: v2's cpu.max, else v1's pair.
std::optional<double> group_quota(const std::filesystem::path& group) {
  if (const auto cpu_max = read_cgroup_file(group / "cpu.max")) {
    return cpu_quota_from_cpu_max(*cpu_max);
  }
  const auto quota_us = read_cgroup_file(group / "cpu.cfs_quota_us");
  const auto period_us = read_cgroup_file(group / "cpu.cfs_period_us");
  if (quota_us && period_us) return cpu_quota_from_cfs(*quota_us, *period_us);
  return std::nullopt;
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  // More CPUs than a cpu_set_t holds (over 1,024): the machine's count.
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int usable_cpus(int affinity_cpus, std::optional<double> quota) {
  int cpus = std::max(1, affinity_cpus);
  if (quota && *quota > 0.0) cpus = std::min(cpus, static_cast<int>(std::ceil(*quota)));
  return std::max(1, cpus);
}

std::optional<double> cpu_quota_from_cpu_max(std::string_view cpu_max) {
  const std::size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto quota_us = cgroup_number(cpu_max.substr(0, space));
  const auto period_us = cgroup_number(cpu_max.substr(space + 1));
  if (!quota_us || !period_us) return std::nullopt;  // "max 100000" among them
  return quota(*quota_us, *period_us);
}

std::optional<double> cpu_quota_from_cfs(std::string_view quota_us, std::string_view period_us) {
  const auto quota_value = cgroup_number(quota_us);
  const auto period_value = cgroup_number(period_us);
  if (!quota_value || !period_value) return std::nullopt;
  return quota(*quota_value, *period_value);
}

std::optional<double> cgroup_cpu_quota(std::string_view proc_self_cgroup,
                                       const std::filesystem::path& cgroup_mount) {
  std::optional<double> found;
  for_each_cgroup_up(proc_self_cgroup, cgroup_mount, "cpu",
                     [&found](const std::filesystem::path& group) {
                       found = smaller_limit(found, group_quota(group));
                     });
  return found;
}

int usable_cpu_count() {
  const std::optional<std::string> membership = read_cgroup_file("/proc/self/cgroup");
  const std::optional<double> quota =
      membership ? cgroup_cpu_quota(*membership, "/sys/fs/cgroup") : std::nullopt;
  return usable_cpus(affinity_cpus(), quota);
}

}  // namespace nmt
