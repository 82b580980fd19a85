// oneDNN's integer GEMM behind a C function of libnmt_int8.so, a module nmt loads with a symbol
// scope of its own (nmt/private_module.h): a PyTorch wheel's LibTorch carries its own oneDNN, whose
// inline functions of the same names would otherwise run in Debian's oneDNN (its int8 GEMM then
// answers "unimplemented"). Private to src/model.
#pragma once

#include <cstdint>

// c [m, n] = a [m, k] b^T, b given as [n, k], row-major; returns oneDNN's status (0 = success).
extern "C" int nmt_gemm_s8s8s32(
    int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b, int32_t* c);
