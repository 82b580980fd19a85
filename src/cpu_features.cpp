#include "nmt/cpu_features.h"

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

}  // namespace nmt
