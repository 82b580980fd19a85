#include "nmt/cpu_features.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace nmt {
namespace {

constexpr const char* kTierNames[] = {"baseline",    "avx2",        "avx_vnni", "avx512",
                                      "avx512_vnni", "avx512_bf16", "amx"};

const char* setting() {
  const char* value = std::getenv("NMT_CPU_ISA");
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::optional<CpuTier> parse_tier(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kTierNames); ++i) {
    if (name == kTierNames[i]) return static_cast<CpuTier>(i);
  }
  return std::nullopt;
}

// Whether the cap, if any, allows `tier`.
bool allows(CpuTier tier) {
  const std::optional<CpuTier> cap = cpu_tier_cap();
  return !cap || tier <= *cap;
}

// Whether the processor itself has a feature (__builtin_cpu_supports takes only a literal).
#if defined(__x86_64__) && defined(__GNUC__)
#define NMT_HARDWARE_HAS(feature) (__builtin_cpu_supports(feature) != 0)
#else
#define NMT_HARDWARE_HAS(feature) false
#endif

// CPUID leaf 7, subleaf 1, EAX bit 4: read directly, since Clang 14's __builtin_cpu_supports does
// not know the feature's name. Its 256-bit registers need the operating system's AVX state, which
// the AVX2 check includes.
bool hardware_has_avx_vnni() {
#if defined(__x86_64__) && defined(__linux__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 4)) != 0 && NMT_HARDWARE_HAS("avx2");
#else
  return false;
#endif
}

bool hardware_has_amx_int8() {
#if defined(__x86_64__) && defined(__linux__)
  static const bool usable = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    const bool has_tile = (edx & (1u << 24)) != 0;
    const bool has_int8 = (edx & (1u << 25)) != 0;
    if (!has_tile || !has_int8) return false;
    // Linux hands out the tile registers' 8 KB of state only to processes that ask for it
    // (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); a kernel or hypervisor that refuses
    // means no AMX here.
    constexpr long kRequestPermission = 0x1023;  // ARCH_REQ_XCOMP_PERM
    constexpr long kTileData = 18;               // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
  }();
  return usable;
#else
  return false;
#endif
}

bool hardware_is_amd() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_is("amd") != 0;
#else
  return false;
#endif
}

// OpenBLAS's kernel set for AVX2 with FMA: on AMD's cores Zen's, which trained 7.7% faster than
// Haswell's on a Zen 3 (record blas-cores-2026-12-02-zen3).
const char* avx2_openblas_core() { return hardware_is_amd() ? "Zen" : "Haswell"; }

// Sets `name` to `value` unless the user set it; true when it was set here.
bool set_unless_given(const char* name, const char* value) {
  if (value == nullptr || std::getenv(name) != nullptr) return false;
  return setenv(name, value, /*overwrite=*/0) == 0;
}

}  // namespace

const char* tier_name(CpuTier tier) { return kTierNames[static_cast<std::size_t>(tier)]; }

std::optional<CpuTier> cpu_tier_cap() {
  static const std::optional<CpuTier> cap = [] {
    const char* value = setting();
    return value != nullptr ? parse_tier(value) : std::nullopt;
  }();
  return cap;
}

std::string cpu_tier_problem() {
  const char* value = setting();
  if (value == nullptr || parse_tier(value)) return "";
  std::string names;
  for (const char* name : kTierNames) names += std::string(names.empty() ? "" : ", ") + name;
  return "NMT_CPU_ISA: unknown tier '" + std::string(value) + "' (one of " + names + ")";
}

// FMA comes with AVX2 in every x86 CPU that has it (Haswell, Excavator and later), and LibTorch's
// AVX2 capability requires both too (ATen's DispatchStub.cpp: avx2 and fma3).
bool cpu_has_avx2() {
  return allows(CpuTier::kAvx2) && NMT_HARDWARE_HAS("avx2") && NMT_HARDWARE_HAS("fma");
}

bool cpu_has_avx_vnni() { return allows(CpuTier::kAvxVnni) && hardware_has_avx_vnni(); }

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 11)
  return allows(CpuTier::kAvx512Bf16) && NMT_HARDWARE_HAS("avx512bf16");
#else
  return false;  // compilers before GCC 11 do not know the feature's name
#endif
}

bool cpu_has_avx512_vnni() {
  return allows(CpuTier::kAvx512Vnni) && NMT_HARDWARE_HAS("avx512vnni");
}

bool cpu_has_amx_int8() { return allows(CpuTier::kAmx) && hardware_has_amx_int8(); }

CpuTier cpu_tier() {
  if (cpu_has_amx_int8()) return CpuTier::kAmx;
  if (cpu_has_avx512_bf16()) return CpuTier::kAvx512Bf16;
  if (cpu_has_avx512_vnni()) return CpuTier::kAvx512Vnni;
  if (allows(CpuTier::kAvx512) && NMT_HARDWARE_HAS("avx512f")) return CpuTier::kAvx512;
  if (cpu_has_avx_vnni()) return CpuTier::kAvxVnni;
  if (cpu_has_avx2()) return CpuTier::kAvx2;
  return CpuTier::kBaseline;
}

bool cpu_trains_faster_in_bf16() {
  return cpu_has_amx_int8() || (cpu_has_avx512_bf16() && hardware_is_amd());
}

const char* precision_auto_row() {
  if (cpu_has_amx_int8()) return "AMX";
  if (cpu_has_avx512_bf16()) {
    return hardware_is_amd() ? "AVX512-BF16 without AMX, AMD" : "AVX512-BF16 without AMX, Intel";
  }
  if (cpu_has_avx512_vnni()) return "AVX512-VNNI without BF16";
  if (cpu_tier() >= CpuTier::kAvx512) return "AVX-512 without VNNI";
  if (cpu_has_avx_vnni()) return "AVX-VNNI without AVX-512";
  if (cpu_has_avx2()) return "AVX2";
  return "baseline";
}

CpuTier vector_loop_tier() {
  if (!NMT_HAS_VECTOR_CLONES) return CpuTier::kBaseline;
  const CpuTier tier = cpu_tier();
  if (tier >= CpuTier::kAvx512) return CpuTier::kAvx512;
  return tier >= CpuTier::kAvx2 ? CpuTier::kAvx2 : CpuTier::kBaseline;
}

bool cap_libraries_at_cpu_tier() {
  const std::optional<CpuTier> cap = cpu_tier_cap();
  if (!cap) return false;
  // LibTorch knows default, avx2 and avx512; oneDNN every tier; OpenBLAS is capped only below
  // AVX-512, at its AVX2 kernels (its own choice otherwise).
  constexpr const char* kAten[] = {"default", "avx2", "avx2", nullptr, nullptr, nullptr, nullptr};
  constexpr const char* kOneDnn[] = {
      "SSE41",          "AVX2", "AVX2_VNNI", "AVX512_CORE", "AVX512_CORE_VNNI", "AVX512_CORE_BF16",
      "AVX512_CORE_AMX"};
  const char* const avx2 = avx2_openblas_core();
  const char* const kOpenBlas[] = {"Nehalem", avx2, avx2, nullptr, nullptr, nullptr, nullptr};
  const auto index = static_cast<std::size_t>(*cap);
  set_unless_given("ATEN_CPU_CAPABILITY", kAten[index]);
  set_unless_given("ONEDNN_MAX_CPU_ISA", kOneDnn[index]);
  return set_unless_given("OPENBLAS_CORETYPE", kOpenBlas[index]);
}

void bound_onednn_primitive_cache() {
  set_unless_given("ONEDNN_PRIMITIVE_CACHE_CAPACITY",
                   std::to_string(kOneDnnPrimitiveCache).c_str());
}

std::string best_openblas_core() {
  const CpuTier tier = cpu_tier();
  const bool has_avx512_core = NMT_HARDWARE_HAS("avx512f") && NMT_HARDWARE_HAS("avx512bw") &&
                               NMT_HARDWARE_HAS("avx512dq") && NMT_HARDWARE_HAS("avx512vl") &&
                               NMT_HARDWARE_HAS("avx512cd");
  if (tier >= CpuTier::kAvx512Bf16 && has_avx512_core) return "Cooperlake";
  if (tier >= CpuTier::kAvx512 && has_avx512_core) return "SkylakeX";
  if (tier >= CpuTier::kAvx2) return avx2_openblas_core();
  if (allows(CpuTier::kAvx2) && NMT_HARDWARE_HAS("avx")) return "Sandybridge";
  return "";
}

bool is_openblas_core_below(const std::string& chosen, const std::string& best) {
  // OpenBLAS's x86-64 kernel sets by the widest instructions they use. Zen's are Haswell's;
  // Atom, Core2, Penryn, Dunnington and Nehalem use SSE, Bulldozer and its successors AVX.
  static const std::pair<const char*, int> kRanks[] = {
      {"Prescott", 0},      {"Atom", 0},       {"Core2", 0},       {"Penryn", 0},
      {"Dunnington", 0},    {"Nehalem", 0},    {"Opteron", 0},     {"Opteron_SSE3", 0},
      {"Barcelona", 0},     {"Nano", 0},       {"Bobcat", 0},      {"Sandybridge", 1},
      {"Bulldozer", 1},     {"Piledriver", 1}, {"Steamroller", 1}, {"Excavator", 1},
      {"Haswell", 2},       {"Zen", 2},        {"SkylakeX", 3},    {"Cooperlake", 4},
      {"SapphireRapids", 5}};
  const auto rank = [](const std::string& name) {
    for (const auto& [known, value] : kRanks) {
      if (name == known) return value;
    }
    return -1;
  };
  const int chosen_rank = rank(chosen), best_rank = rank(best);
  return chosen_rank >= 0 && best_rank >= 0 && chosen_rank < best_rank;
}

namespace {

// An OpenBLAS function's string result through a symbol of `library` (a dlopen handle, or
// RTLD_DEFAULT for what the process has loaded), so that nmt needs no link to OpenBLAS and runs
// with another BLAS.
std::string openblas_string(void* library, const char* symbol) {
  using Function = const char* (*)();
  const auto function = reinterpret_cast<Function>(dlsym(library, symbol));
  const char* value = function != nullptr ? function() : nullptr;
  if (value == nullptr) return "";
  std::string text(value);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::string openblas_core() { return openblas_string(RTLD_DEFAULT, "openblas_get_corename"); }
std::string openblas_config() { return openblas_string(RTLD_DEFAULT, "openblas_get_config"); }

std::string openblas_core_of(const char* library) {
  // Left loaded: the launcher replaces its process image next, and unloading OpenBLAS while its
  // threads may still start is a hazard for no gain.
  void* handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  return handle != nullptr ? openblas_string(handle, "openblas_get_corename") : "";
}

bool raise_openblas_to_cpu(const std::string& chosen) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;
  const std::string best = best_openblas_core();
  if (!is_openblas_core_below(chosen, best)) return false;
  setenv("NMT_OPENBLAS_CHOSE", chosen.c_str(), /*overwrite=*/1);
  return set_unless_given("OPENBLAS_CORETYPE", best.c_str());
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace nmt
