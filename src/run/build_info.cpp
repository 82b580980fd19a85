#include "nmt/run/build_info.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <cstdlib>
#include <thread>

#include "nmt/cpu_count.h"
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

// Why a feature is missing: the CPU, or NMT_CPU_ISA's cap.
std::string lacking(const char* feature) {
  return cpu_tier_cap() ? fmt::format("{} is above this CPU tier", feature)
                        : fmt::format("this CPU lacks {}", feature);
}

std::string int8_line() {
  if (!model::has_int8_inference()) return "no (nmt's int8 kernel is built for x86-64 only)";
  if (model::int8_runs_on_amx()) {
    return "yes (this CPU has AVX512-VNNI and AMX-INT8: the default for decoding, on AMX tiles)";
  }
  if (cpu_has_avx512_vnni()) return "yes (this CPU has AVX512-VNNI: the default for decoding)";
  if (model::int8_runs_on_avx_vnni()) {
    return fmt::format("yes (AVX-VNNI kernel: {}; the default for decoding)",
                       lacking("AVX512-VNNI"));
  }
  if (cpu_has_avx2()) {
    return fmt::format(
        "yes (AVX2 kernels: {}; decoding defaults to int8w7, int8 with 7-bit weights)",
        lacking("AVX512-VNNI"));
  }
  return fmt::format("no ({})", lacking("AVX2"));
}

std::string tier_line() {
  const std::string problem = cpu_tier_problem();
  if (!problem.empty()) return problem;
  const std::optional<CpuTier> cap = cpu_tier_cap();
  return fmt::format("{}{}", tier_name(cpu_tier()),
                     cap ? fmt::format(" (NMT_CPU_ISA={} caps it)", tier_name(*cap)) : "");
}

// Which variant of nmt's element loops (src/vector_clones.h) runs.
std::string vector_loops_line() {
  if (!NMT_HAS_VECTOR_CLONES) return "baseline (this build compiles nmt's element loops once)";
  return fmt::format(
      "{} (nmt's element loops, built for avx512, avx2 and baseline, follow the tier)",
      tier_name(vector_loop_tier()));
}

// Which OpenBLAS kernels run, and who chose them.
std::string blas_line() {
  const std::string core = openblas_core();
  if (core.empty()) return "not OpenBLAS (nmt cannot name its kernels)";
  const std::string config = openblas_config();
  const std::string version = config.substr(0, config.find(' ', config.find(' ') + 1));
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  const char* replaced = std::getenv("NMT_OPENBLAS_CHOSE");
  std::string why;
  if (forced != nullptr && replaced != nullptr && core == forced) {
    why = fmt::format(" (nmt set OPENBLAS_CORETYPE: OpenBLAS chose {} for this CPU)", replaced);
  } else if (forced != nullptr) {
    why = fmt::format(" (OPENBLAS_CORETYPE={})", forced);
  }
  const std::string best = best_openblas_core();
  if (is_openblas_core_below(core, best)) why += fmt::format(" (this CPU allows {})", best);
  return fmt::format("{}, {} kernels{}", version, core, why);
}

// Whose malloc the process runs: tcmalloc where the program links it (src/CMakeLists.txt) or it is
// preloaded, asked by name because nmt's code does not link it.
std::string malloc_line() {
  using Version = const char* (*)(int*, int*, const char**);
  const auto version = reinterpret_cast<Version>(dlsym(RTLD_DEFAULT, "tc_version"));
  if (version == nullptr) {
    return "glibc (tcmalloc not linked, Debian: libtcmalloc-minimal4; bf16 training may hold "
           "twice the memory)";
  }
  int major = 0;
  int minor = 0;
  const char* patch = nullptr;
  version(&major, &minor, &patch);
  return fmt::format("tcmalloc {}.{}{} (gperftools)", major, minor, patch == nullptr ? "" : patch);
}

std::string bf16_line() {
  if (!cpu_has_avx512_bf16()) {
    return fmt::format("no ({}: CPU training defaults to fp32)", lacking("AVX512-BF16"));
  }
  if (cpu_trains_faster_in_bf16()) {
    return fmt::format("yes (this CPU has AVX512-BF16{}: the default for CPU training)",
                       cpu_has_amx_int8() ? " and AMX" : "");
  }
  return fmt::format("yes, on request (AVX512-BF16 without AMX ({}): CPU training defaults to fp32, "
                     "measured faster on Intel's cores)",
                     cpu_tier_cap() ? "AMX is above this CPU tier" : "this CPU lacks AMX");
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
      "  CPU tier      {}\n"
      "  vector loops  {}\n"
      "  BLAS          {}\n"
      "  malloc        {}\n"
      "  CPU threads   {} usable of {} online (affinity, cgroup quota: what --threads 0 takes)",
      nmt_version, TORCH_VERSION, cuda_line(),
      train::has_nccl() ? "yes (CUDA ranks train together)" : "no",
      train::has_gloo() ? "yes (CPU ranks train together)" : "no (Debian: libgloo-dev)",
      int8_line(), bf16_line(), tier_line(), vector_loops_line(), blas_line(), malloc_line(),
      usable_cpu_count(), std::thread::hardware_concurrency());
}

}  // namespace nmt::run
