// vnni_gemm's product on 256-bit vectors with vpdpbusd (model/vnni_gemm.h): about 2 instructions
// per 32 products (a broadcast and the dot product), where avx2_gemm needs 6 to keep its 16-bit
// pair sums exact. The kernel's body is model/avx_vnni_kernel.inc, compiled here twice: for
// AVX-VNNI's VEX encoding, which nmt chooses on CPUs that have it and lack AVX512-VNNI, and for
// AVX512-VL's EVEX encoding of the same instruction, which only the tests run.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "model/vnni_gemm.h"

#if !defined(__x86_64__) || !defined(__GNUC__)
#error "avx_vnni_gemm.cpp needs x86-64 and GCC 11 or Clang 12"
#endif

namespace nmt::model {
namespace {
namespace vex {

#define NMT_DOT_TARGET __attribute__((target("avx2,avxvnni")))
NMT_DOT_TARGET inline __m256i dot_accumulate(__m256i sums, __m256i activations, __m256i weights) {
  return _mm256_dpbusd_avx_epi32(sums, activations, weights);
}
#include "model/avx_vnni_kernel.inc"
#undef NMT_DOT_TARGET

}  // namespace vex

namespace evex {

#define NMT_DOT_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512vnni")))
NMT_DOT_TARGET inline __m256i dot_accumulate(__m256i sums, __m256i activations, __m256i weights) {
  return _mm256_dpbusd_epi32(sums, activations, weights);
}
#include "model/avx_vnni_kernel.inc"
#undef NMT_DOT_TARGET

}  // namespace evex
}  // namespace

void avx_vnni_gemm(const Int8Product& product, PanelRange panels) { vex::gemm(product, panels); }

void avx512_vl_vnni_gemm(const Int8Product& product, PanelRange panels) {
  evex::gemm(product, panels);
}

}  // namespace nmt::model
