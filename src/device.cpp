#include "nmt/device.h"

#ifdef __GLIBC__
#include <malloc.h>

#include <climits>
#endif

#include <ATen/Parallel.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include "nmt/cpu_count.h"
#include "nmt/error.h"

namespace nmt {

c10::Device resolve_device(const std::string& name, const std::string& key) {
  const bool has_cuda = torch::cuda::is_available();
  if (name == "auto") return has_cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (name == "cpu") return c10::Device(c10::kCPU);
  if (name.rfind("cuda", 0) == 0) {
    if (!has_cuda)
      throw ConfigError(key, "\"" + name + "\" asked for, but no CUDA device is usable here");
    const c10::Device device(name);
    if (device.index() >= static_cast<int64_t>(torch::cuda::device_count())) {
      throw ConfigError(key, "\"" + name + "\" asked for, but only " +
                                 std::to_string(torch::cuda::device_count()) +
                                 " CUDA devices exist");
    }
    return device.has_index() ? device : c10::Device(c10::kCUDA, 0);
  }
  throw ConfigError(key,
                    "expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\", got \"" + name + "\"");
}

void make_current_device(const c10::Device& device) {
  if (device.is_cuda()) c10::impl::getDeviceGuardImpl(device.type())->setDevice(device);
}

int64_t set_threads(int64_t threads) {
  const int64_t count = threads > 0 ? threads : usable_cpu_count();
  if (at::get_num_threads() != count) at::set_num_threads(static_cast<int>(count));
  return count;
}

ThreadCountScope::ThreadCountScope(int64_t threads) : previous_(at::get_num_threads()) {
  set_threads(threads);
}

ThreadCountScope::~ThreadCountScope() { set_threads(previous_); }

void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);              // large blocks come from the heap too ...
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // ... and stay there once freed
  mallopt(M_TOP_PAD, 256 << 20);       // grow the heap in large steps
#endif
}

std::string describe_device(const c10::Device& device) {
  if (device.is_cpu()) return "cpu (" + std::to_string(at::get_num_threads()) + " threads)";
  return device.str();
}

}  // namespace nmt
