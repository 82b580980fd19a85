// What this processor's vector units can do, for choosing number formats and kernels at run time,
// and the environment variable NMT_CPU_ISA that caps it, so that one machine can measure and test
// what nmt does on a lesser CPU. Torch-free; never throws; never logs.
#pragma once

#include <optional>
#include <string>

namespace nmt {

// Instruction-set tiers, lowest first, as caps: NMT_CPU_ISA=t allows the features of t and of
// the tiers below it. oneDNN's names for the same levels: AVX2, AVX2_VNNI, AVX512_CORE,
// AVX512_CORE_VNNI, AVX512_CORE_BF16, AVX512_CORE_AMX. The order is partial in silicon: AVX-VNNI
// (Intel's client CPUs since Alder Lake, AMD's since Zen 5) is missing from many CPUs with
// AVX-512 (Skylake-SP, Cascade Lake, Zen 4), so each feature is checked on its own.
enum class CpuTier { kBaseline, kAvx2, kAvxVnni, kAvx512, kAvx512Vnni, kAvx512Bf16, kAmx };

// NMT_CPU_ISA's name of a tier: "baseline", "avx2", "avx_vnni", "avx512", "avx512_vnni",
// "avx512_bf16", "amx".
const char* tier_name(CpuTier tier);

// The cap NMT_CPU_ISA sets, read once; nothing when it is unset, empty or not a tier's name.
std::optional<CpuTier> cpu_tier_cap();

// Why NMT_CPU_ISA is not usable ("NMT_CPU_ISA: unknown tier 'x' (one of ...)"), or "" when it
// is unset or names a tier.
std::string cpu_tier_problem();

// The highest tier this CPU has, below the cap where NMT_CPU_ISA sets one.
CpuTier cpu_tier();

// Each feature is reported only where the CPU has it and the tier that brings it is allowed.

// AVX2 with FMA: nmt's int8 kernel for CPUs without AVX512-VNNI or AVX-VNNI (model/avx2_gemm.cpp).
bool cpu_has_avx2();

// AVX-VNNI: int8 dot products on 256-bit vectors without AVX-512 (VEX-encoded vpdpbusd), which
// nmt's int8 kernel uses on CPUs without AVX512-VNNI (model/vnni_gemm.h's avx_vnni_gemm).
bool cpu_has_avx_vnni();

// AVX512-BF16: bf16 dot products in hardware, which LibTorch's bf16 matrix products use.
bool cpu_has_avx512_bf16();

// AVX512-VNNI: int8 dot products in hardware, which nmt's int8 kernel uses (model/vnni_gemm.h).
bool cpu_has_avx512_vnni();

// AMX-INT8 (Intel's tile matrix unit), with the operating system's permission to use it, which
// the first call requests for the process: nmt's int8 kernel then multiplies on tiles.
bool cpu_has_amx_int8();

// Whether training under bf16 autocast measured faster than fp32 on a CPU like this one, at its
// tier: with AMX (AMX-BF16 comes with AMX-INT8 on every CPU that has the tiles), and with
// AVX512-BF16 on AMD's cores (Zen 4); not with AVX512-BF16 alone on Intel's (an Emerald Rapids Xeon
// whose hypervisor hides AMX trained fp32 1.4x faster). docs/performance.md, "Precision auto, by
// CPU", has the records.
bool cpu_trains_faster_in_bf16();

// The row of that table this CPU reads at its tier: "AMX", "AVX512-BF16 without AMX, AMD",
// "AVX512-BF16 without AMX, Intel", "AVX512-VNNI without BF16", "AVX-512 without VNNI",
// "AVX-VNNI without AVX-512", "AVX2" or "baseline".
const char* precision_auto_row();

// Whether this build compiles nmt's element loops for several instruction sets
// (src/vector_clones.h): GCC on x86-64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NMT_HAS_VECTOR_CLONES 1
#else
#define NMT_HAS_VECTOR_CLONES 0
#endif

// The variant of nmt's element loops that runs: kAvx512 (AVX-512F), kAvx2 or kBaseline, at most
// cpu_tier(); kBaseline in a build without the variants.
CpuTier vector_loop_tier();

// The processor's name as Linux gives it ("model name" in /proc/cpuinfo, e.g. "AMD EPYC 9B14"),
// or "" where it gives none (some Arm kernels).
std::string cpu_model_name();

// Caps the libraries nmt drives at NMT_CPU_ISA's tier, where it sets one, through their own
// variables: ATEN_CPU_CAPABILITY (LibTorch's vectorised kernels) and ONEDNN_MAX_CPU_ISA (oneDNN),
// which they read when first used, and OPENBLAS_CORETYPE (at the AVX2 tier Haswell, on AMD Zen),
// which OpenBLAS reads when the process loads it. A variable the user set is left as it is. Returns
// true when OPENBLAS_CORETYPE was set here: only a fresh process image sees it (main re-executes
// itself then).
bool cap_libraries_at_cpu_tier();

// OpenBLAS picks its kernels from the CPU's family and model and falls back to generic SSE3 ones
// ("Prescott") on a model it does not know, though the CPU may have AVX-512: Debian's 0.3.21 on an
// Emerald Rapids Xeon ran fp32 2.3 times slower than with Haswell's kernels (issue 67). The kernel
// set this CPU's features allow (at most cpu_tier()): "Cooperlake" with AVX512-BF16, "SkylakeX"
// with AVX-512 (F, BW, DQ, VL, CD), "Haswell" with AVX2 and FMA ("Zen" on AMD), "Sandybridge" with
// AVX, else "".
std::string best_openblas_core();

// Whether OpenBLAS's kernel set `chosen` is below `best` (names as openblas_get_corename() gives
// them, compared by the instructions their kernels use); false for a name it does not rank.
bool is_openblas_core_below(const std::string& chosen, const std::string& best);

// The kernel set of the OpenBLAS in this process (openblas_get_corename()), and its build
// (openblas_get_config()); "" when the BLAS is not OpenBLAS.
std::string openblas_core();
std::string openblas_config();

// The kernel set OpenBLAS chooses for this CPU, asked of `library` (a name the dynamic linker
// resolves, as Debian's LibTorch links "libblas.so.3") loaded into this process for the purpose:
// what nmt's launcher (src/launcher.cpp) reads before LibTorch and OpenBLAS are loaded for real.
// "" when the library cannot be loaded or is not OpenBLAS.
std::string openblas_core_of(const char* library);

// When `chosen` (OpenBLAS's kernel set) is below best_openblas_core() and OPENBLAS_CORETYPE is
// not set, sets it (and NMT_OPENBLAS_CHOSE to `chosen`, for `nmt --version`) and returns true: like
// the cap, it takes effect only where OpenBLAS is loaded afterwards (a process image started next).
bool raise_openblas_to_cpu(const std::string& chosen);

// oneDNN, which multiplies LibTorch's bf16 matrices on the CPU, keeps a compiled primitive for
// every shape it meets, up to 1,024 of them; a corpus of varied lengths brings new shapes with
// almost every batch, and a bf16 training on one grew from 1.6 to 3.8 GiB in 100 steps (issue
// 65). The primitives nmt keeps: 24 held 100 bf16 updates of long lines to 1.80 GiB (64: 2.16) at
// no cost in speed this measured, leaving room under issue 65's 2 GiB for what grows with the
// corpus (docs/corpora.md).
inline constexpr int kOneDnnPrimitiveCache = 24;

// Sets ONEDNN_PRIMITIVE_CACHE_CAPACITY to kOneDnnPrimitiveCache unless the user set it; oneDNN
// reads it when it first compiles a primitive.
void bound_onednn_primitive_cache();

}  // namespace nmt
