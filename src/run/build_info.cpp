#include "nmt/run/build_info.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <thread>

#include "nmt/cpu_features.h"
#include "nmt/model/linear.h"
#include "nmt/train/communicator.h"

namespace nmt::run {
namespace {

std::string cuda_line() {
  // LibTorch's CUDA library registers its device guard when it loads.
  if (!c10::impl::hasDeviceGuardImpl(c10::kCUDA)) return "no (this LibTorch was built without it)";
  const auto devices = torch::cuda::device_count();
  return devices > 0
             ? fmt::format("yes ({} device{} usable here)", devices, devices == 1 ? "" : "s")
             : "yes (built in; no device usable here, so nmt runs on the CPU)";
}

std::string int8_line() {
  if (!model::has_int8_inference()) return "no (nmt's int8 kernel is built for x86-64 only)";
  if (!cpu_has_avx512_vnni()) return "yes (this CPU lacks AVX512-VNNI: decoding defaults to fp32)";
  return model::int8_runs_on_amx()
             ? "yes (this CPU has AVX512-VNNI and AMX-INT8: the default for decoding, on AMX tiles)"
             : "yes (this CPU has AVX512-VNNI: the default for decoding)";
}

std::string bf16_line() {
  return cpu_has_avx512_bf16() ? "yes (this CPU has AVX512-BF16: the default for CPU training)"
                               : "no (this CPU lacks AVX512-BF16: CPU training defaults to fp32)";
}

}  // namespace

std::string describe_build(const std::string& nmt_version) {
  return fmt::format(
      "nmt {}\n"
      "LibTorch {}\n"
      "  CUDA          {}\n"
      "  NCCL          {}\n"
      "  Gloo          {}\n"
      "  int8          {}\n"
      "  bf16 on CPU   {}\n"
      "  CPU threads   {} hardware threads",
      nmt_version, TORCH_VERSION, cuda_line(),
      train::has_nccl() ? "yes (CUDA ranks train together)" : "no",
      train::has_gloo() ? "yes (CPU ranks train together)" : "no (Debian: libgloo-dev)",
      int8_line(), bf16_line(), std::thread::hardware_concurrency());
}

}  // namespace nmt::run
