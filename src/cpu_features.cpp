#include "nmt/cpu_features.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace nmt {

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 11)
  return __builtin_cpu_supports("avx512bf16") != 0;
#else
  return false;
#endif
}

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512vnni") != 0;
#else
  return false;
#endif
}

bool cpu_has_amx_int8() {
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

}  // namespace nmt
