// NMT_VECTOR_CLONES marks the element loops of nmt's own CPU kernels: GCC compiles each for
// AVX-512 and AVX2 as well as the baseline, and the processor picks one when the program loads,
// so one binary runs everywhere and still uses the wide registers where they exist. Only GCC
// builds (Debian's and CI's) are tested with the clones; other compilers get the baseline loop.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NMT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NMT_VECTOR_CLONES
#endif
