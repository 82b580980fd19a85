#include "model/int8_backend.h"

#include <oneapi/dnnl/dnnl.h>

extern "C" int nmt_gemm_s8s8s32(
    int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b, int32_t* c) {
  const int32_t no_offset = 0;
  return static_cast<int>(
      dnnl_gemm_s8s8s32('N', 'T', 'F', m, n, k, 1.0f, a, k, 0, b, k, 0, 0.0f, c, n, &no_offset));
}
