#include "nmt/memory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <utility>

#include "nmt/cgroup.h"
#include "nmt/format.h"

namespace nmt {
namespace {

std::optional<int64_t> read_mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kibibytes = 0;
  std::string unit;
  while (meminfo >> key >> kibibytes >> unit) {
    if (key == "MemAvailable:") return kibibytes * 1024;
  }
  return std::nullopt;
}

std::optional<int64_t> number_in(const std::optional<std::string>& file_text) {
  return file_text ? cgroup_number(*file_text) : std::nullopt;
}

// What a group's limit leaves: v2's memory.max less memory.current, else v1's pair.
std::optional<int64_t> group_headroom(const std::filesystem::path& group) {
  for (const auto& [limit_file, usage_file] :
       {std::pair{"memory.max", "memory.current"},
        std::pair{"memory.limit_in_bytes", "memory.usage_in_bytes"}}) {
    const auto limit = number_in(read_cgroup_file(group / limit_file));
    const auto used = number_in(read_cgroup_file(group / usage_file));
    if (limit && used) return std::max<int64_t>(*limit - *used, 0);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> cgroup_memory_headroom(std::string_view proc_self_cgroup,
                                              const std::filesystem::path& cgroup_mount) {
  std::optional<int64_t> found;
  for_each_cgroup_up(proc_self_cgroup, cgroup_mount, "memory",
                     [&found](const std::filesystem::path& group) {
                       found = smaller_limit(found, group_headroom(group));
                     });
  return found;
}

std::optional<int64_t> available_host_memory() {
  std::optional<int64_t> available = read_mem_available();
  const std::optional<std::string> membership = read_cgroup_file("/proc/self/cgroup");
  const std::optional<int64_t> cgroup =
      membership ? cgroup_memory_headroom(*membership, "/sys/fs/cgroup") : std::nullopt;
  if (cgroup) available = available ? std::min(*available, *cgroup) : *cgroup;
  return available;
}

std::optional<std::string> describe_out_of_memory(const std::string& failure) {
  const std::string first_line = failure.substr(0, failure.find('\n'));
  const bool is_cpu = first_line.find("can't allocate memory") != std::string::npos;
  const bool is_cuda = first_line.find("out of memory") != std::string::npos;
  if (!is_cpu && !is_cuda) return std::nullopt;
  std::string request;
  std::smatch match;
  if (std::regex_search(first_line, match, std::regex("allocate (\\d+) bytes"))) {
    request = " (an allocation of " + format_bytes(std::stoll(match[1])) + " failed)";
  } else if (std::regex_search(first_line, match,
                               std::regex("[Tt]ried to allocate ([0-9.]+ [KMGT]?i?B)"))) {
    request = " (an allocation of " + match[1].str() + " failed)";
  }
  return std::string(is_cpu ? "out of host memory" : "out of GPU memory") + request +
         ": lower train.max_tokens or train.batch_size (decode.batch_size when translating), or "
         "use a smaller model (model.d_model, model.layers, text.vocab_size)";
}

}  // namespace nmt
