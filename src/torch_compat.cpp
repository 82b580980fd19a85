#include "torch_compat.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace nmt::compat {

bool has_fused_attention() { return TORCH_VERSION_MAJOR >= 2; }

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
namespace {

// cuDNN's fused attention builds a graph for every new shape of its inputs (hundreds of
// milliseconds each) and only then reuses it. nmt's shapes change with every batch and every
// decoding step (the keys grow by one), so on an H100, where LibTorch 2.11 picks cuDNN for bf16,
// greedy bf16 decoding ran 16x slower than fp32 while the same sentences again, their graphs
// built, took no longer (record data/benchmarks/gpu-h100-2026-11-28/). The flash and
// memory-efficient kernels need no such step.
void keep_attention_off_cudnn() {
  static const bool kept_off = [] {
    at::globalContext().setSDPUseCuDNN(false);
    return true;
  }();
  (void)kept_off;
}

}  // namespace
#endif

at::Tensor fused_attention(const at::Tensor& query,
                           const at::Tensor& key,
                           const at::Tensor& value,
                           const at::Tensor& mask) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  if (query.is_cuda()) keep_attention_off_cudnn();
#endif
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(
      query, key, value, mask.defined() ? c10::optional<at::Tensor>(mask) : c10::nullopt);
#else
  (void)key;
  (void)value;
  (void)mask;
  TORCH_CHECK(false, "fused attention needs LibTorch 2 or later, this is ", TORCH_VERSION, " for ",
              query.sizes());
#endif
}

bool set_autocast(c10::DeviceType device, bool enabled, c10::ScalarType dtype) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  const bool previous = at::autocast::is_autocast_enabled(device);
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
#else
  const bool is_cpu = device == c10::DeviceType::CPU;
  const bool previous = is_cpu ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
  if (is_cpu) {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
  if (!enabled) at::autocast::clear_cache();
  return previous;
}

bool autocast_enabled(c10::DeviceType device) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled()
                                        : at::autocast::is_enabled();
#endif
}

at::Tensor generator_state(const c10::Device& device) {
  if (device.is_cuda()) {
    return at::globalContext().defaultGenerator(device).get_state();
  }
  return at::detail::getDefaultCPUGenerator().get_state();
}

void set_generator_state(const c10::Device& device, const at::Tensor& state) {
  at::Generator generator = device.is_cuda() ? at::globalContext().defaultGenerator(device)
                                             : at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace nmt::compat
