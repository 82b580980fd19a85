// What this processor's vector units can do, for choosing number formats at run time. Torch-free;
// never throws; never logs.
#pragma once

namespace nmt {

// AVX512-BF16: bf16 dot products in hardware, which LibTorch's bf16 matrix products use.
bool cpu_has_avx512_bf16();

// AVX512-VNNI: int8 dot products in hardware, which nmt's int8 kernel uses (model/vnni_gemm.h).
bool cpu_has_avx512_vnni();

// AMX-INT8 (Intel's tile matrix unit), with the operating system's permission to use it, which
// the first call requests for the process: nmt's int8 kernel then multiplies on tiles.
bool cpu_has_amx_int8();

}  // namespace nmt
