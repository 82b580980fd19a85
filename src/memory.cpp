#include "nmt/memory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>

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

std::optional<int64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// cgroup v2: memory.max minus memory.current of this process's group.
std::optional<int64_t> read_cgroup_headroom() {
  std::ifstream membership("/proc/self/cgroup");
  std::string line;
  while (std::getline(membership, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string group = "/sys/fs/cgroup" + line.substr(3);
    const auto limit = read_number(group + "/memory.max");
    const auto used = read_number(group + "/memory.current");
    if (limit && used) return std::max<int64_t>(*limit - *used, 0);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> available_host_memory() {
  std::optional<int64_t> available = read_mem_available();
  const std::optional<int64_t> cgroup = read_cgroup_headroom();
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
