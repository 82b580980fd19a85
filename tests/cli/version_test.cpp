// `nmt --version` names what was built: nmt's version, the LibTorch it was compiled against and a
// line per feature, each matching what CMake found for this build.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "test_utils.h"

namespace nmt {
namespace {

std::string line_starting(const std::string& text, const std::string& prefix) {
  const auto start = text.find(prefix);
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

TEST(VersionTest, NamesNmtLibTorchAndEveryFeatureOfThisBuild) {
  const auto result = testing::run_nmt("--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.rfind(std::string("nmt ") + NMT_VERSION + "\n", 0), 0u) << result.output;
  EXPECT_EQ(line_starting(result.output, "LibTorch"),
            std::string("LibTorch ") + NMT_EXPECTED_TORCH_VERSION);
  EXPECT_EQ(line_starting(result.output, "  CUDA")
                .rfind(NMT_EXPECTED_CUDA ? "  CUDA          yes" : "  CUDA          no", 0),
            0u)
      << result.output;
  EXPECT_EQ(line_starting(result.output, "  NCCL")
                .rfind(NMT_EXPECTED_NCCL ? "  NCCL          yes" : "  NCCL          no", 0),
            0u)
      << result.output;
  EXPECT_EQ(line_starting(result.output, "  Gloo")
                .rfind(NMT_EXPECTED_GLOO ? "  Gloo          yes" : "  Gloo          no", 0),
            0u)
      << result.output;
  EXPECT_EQ(
      line_starting(result.output, "  malloc")
          .rfind(NMT_EXPECTED_TCMALLOC ? "  malloc        tcmalloc 2." : "  malloc        glibc (",
                 0),
      0u)
      << result.output;
  for (const char* feature : {"  int8          ", "  bf16 on CPU   "}) {
    EXPECT_FALSE(line_starting(result.output, feature).empty()) << feature << result.output;
  }
}

// NMT_CPU_ISA caps what nmt uses, and --version says so; at the AVX2 tier int8 runs on the AVX2
// kernels (model/avx2_gemm.cpp) and decoding defaults to 7-bit weights.
TEST(VersionTest, NmtCpuIsaCapsTheTier) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") == 0) GTEST_SKIP() << "this CPU has no AVX2";
  const auto result = testing::run_nmt_with_env("NMT_CPU_ISA=avx2", "--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(line_starting(result.output, "  CPU tier"),
            "  CPU tier      avx2 (NMT_CPU_ISA=avx2 caps it)");
  EXPECT_EQ(
      line_starting(result.output, "  int8"),
      "  int8          yes (AVX2 kernels: AVX512-VNNI is above this CPU tier; decoding defaults "
      "to int8w7, int8 with 7-bit weights)");
  EXPECT_EQ(line_starting(result.output, "  bf16 on CPU"),
            "  bf16 on CPU   no (AVX512-BF16 is above this CPU tier: CPU training defaults to "
            "fp32)");
  EXPECT_EQ(line_starting(result.output, "  vector loops"),
            "  vector loops  avx2 (nmt's element loops, built for avx512, avx2 and baseline, "
            "follow the tier)");
  const auto baseline = testing::run_nmt_with_env("NMT_CPU_ISA=baseline", "--version");
  EXPECT_EQ(line_starting(baseline.output, "  vector loops").rfind("  vector loops  baseline (", 0),
            0u)
      << baseline.output;
#else
  GTEST_SKIP() << "the tiers are x86-64's";
#endif
}

// Below AMX, AVX512-BF16 trains by default only on AMD's cores; on Intel's it is there on request
// and CPU training defaults to fp32, which measured faster there (docs/performance.md, "Precision
// auto, by CPU").
TEST(VersionTest, Bf16WithoutAmxIsTheTrainingDefaultOnlyOnAmd) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512bf16") == 0) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const auto result = testing::run_nmt_with_env("NMT_CPU_ISA=avx512_bf16", "--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(line_starting(result.output, "  bf16 on CPU"),
            __builtin_cpu_is("amd") != 0
                ? "  bf16 on CPU   yes (this CPU has AVX512-BF16: the default for CPU training)"
                : "  bf16 on CPU   yes, on request (AVX512-BF16 without AMX (AMX is above this "
                  "CPU tier): CPU training defaults to fp32, measured faster on Intel's cores)");
#else
  GTEST_SKIP() << "the tiers are x86-64's";
#endif
}

// NMT_CPU_ISA=avx_vnni allows AVX-VNNI but not AVX-512: int8 then runs on the AVX-VNNI kernel
// where the CPU has AVX-VNNI, on the AVX2 kernel where it has not (AMD's Zen 4, Intel's Xeons
// before Sapphire Rapids), and nmt's element loops on their AVX2 variant either way.
TEST(VersionTest, TheAvxVnniTierRunsInt8OnAvxVnniWhereTheCpuHasIt) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") == 0) GTEST_SKIP() << "this CPU has no AVX2";
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool has_avx_vnni =
      __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
#ifdef NMT_EXPECTED_AVX_VNNI_KERNEL
  const bool runs_avx_vnni = has_avx_vnni;
#else
  const bool runs_avx_vnni = false;
#endif
  const auto result = testing::run_nmt_with_env("NMT_CPU_ISA=avx_vnni", "--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(line_starting(result.output, "  CPU tier"), std::string("  CPU tier      ") +
                                                            (has_avx_vnni ? "avx_vnni" : "avx2") +
                                                            " (NMT_CPU_ISA=avx_vnni caps it)");
  EXPECT_EQ(line_starting(result.output, "  int8"),
            runs_avx_vnni ? "  int8          yes (AVX-VNNI kernel: AVX512-VNNI is above this CPU "
                            "tier; the default for decoding)"
                          : "  int8          yes (AVX2 kernels: AVX512-VNNI is above this CPU "
                            "tier; decoding defaults to int8w7, int8 with 7-bit weights)");
  EXPECT_EQ(line_starting(result.output, "  vector loops").rfind("  vector loops  avx2 (", 0), 0u)
      << result.output;
#else
  GTEST_SKIP() << "the tiers are x86-64's";
#endif
}

// OpenBLAS falls back to generic kernels on CPUs newer than itself; --version names the kernels
// that run and what the CPU allows. OPENBLAS_CORETYPE=Prescott stands for such a fallback: a
// choice the user made, which nmt leaves as it is but reports.
TEST(VersionTest, NamesTheOpenBlasKernelsAndWhatTheCpuAllows) {
  const auto result = testing::run_nmt("--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string blas = line_starting(result.output, "  BLAS");
  if (blas.rfind("  BLAS          not OpenBLAS", 0) == 0) GTEST_SKIP() << blas;
  EXPECT_EQ(blas.rfind("  BLAS          OpenBLAS 0.", 0), 0u) << result.output;
  EXPECT_EQ(blas.find("this CPU allows"), std::string::npos) << "the default runs below the CPU";
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") == 0) GTEST_SKIP() << "this CPU has no AVX2";
  const auto generic = testing::run_nmt_with_env("OPENBLAS_CORETYPE=Prescott", "--version");
  ASSERT_EQ(generic.exit_code, 0) << generic.output;
  const std::string forced = line_starting(generic.output, "  BLAS");
  EXPECT_NE(forced.find(", Prescott kernels (OPENBLAS_CORETYPE=Prescott) (this CPU allows "),
            std::string::npos)
      << forced;
  // AMD's AVX2 kernels are Zen's (record blas-cores-2026-12-02-zen3).
  const auto capped = testing::run_nmt_with_env("NMT_CPU_ISA=avx2", "--version");
  const std::string avx2_kernels = __builtin_cpu_is("amd") ? ", Zen kernels" : ", Haswell kernels";
  EXPECT_NE(line_starting(capped.output, "  BLAS").find(avx2_kernels), std::string::npos)
      << capped.output;
#endif
}

// How many times a process tree loaded LibTorch, from the dynamic linker's own account
// (LD_DEBUG=files writes a line per library it maps).
int libtorch_loads(const std::string& linker_log) {
  int loads = 0;
  for (std::size_t at = linker_log.find("file=libtorch_cpu.so"); at != std::string::npos;
       at = linker_log.find("file=libtorch_cpu.so", at + 1)) {
    const std::size_t end = linker_log.find('\n', at);
    if (linker_log.substr(at, end - at).find("generating link map") != std::string::npos) ++loads;
  }
  return loads;
}

// The launcher nmt sets NMT_CPU_ISA's cap (OPENBLAS_CORETYPE among it) before LibTorch and OpenBLAS
// are loaded; the program alone learns it after loading them and starts itself again, loading
// LibTorch twice (issue 67: half a second of every capped start).
TEST(VersionTest, TheLauncherLoadsLibTorchOnceAtACappedTier) {
  const auto launched =
      testing::run_nmt_with_env("LD_DEBUG=files NMT_CPU_ISA=baseline", "--version");
  ASSERT_EQ(launched.exit_code, 0) << launched.output;
  EXPECT_EQ(libtorch_loads(launched.output), 1) << launched.output;
  const std::string blas = line_starting(launched.output, "  BLAS");
  if (blas.rfind("  BLAS          not OpenBLAS", 0) != 0) {  // PyPI's LibTorch brings MKL
    EXPECT_NE(blas.find("OPENBLAS_CORETYPE=Nehalem"), std::string::npos) << blas;
  }
  const std::string program =
      (std::filesystem::path(NMT_BINARY).parent_path() / "nmt-torch").string();
  const auto alone =
      testing::run_command("env LD_DEBUG=files NMT_CPU_ISA=baseline '" + program + "' --version");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_EQ(libtorch_loads(alone.output), 2) << "the restart the launcher saves";
}

TEST(VersionTest, ALauncherWithoutItsProgramSaysWhichFileIsMissing) {
  testing::ScratchDir scratch;
  const std::string launcher = scratch.file("nmt");
  std::filesystem::copy_file(NMT_BINARY, launcher);
  const auto result = testing::run_command("'" + launcher + "' --version");
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_EQ(result.output, "nmt: error: cannot start " + scratch.file("nmt-torch") +
                               ": No such file or directory\n");
}

TEST(VersionTest, AnUnknownTierIsAnErrorNamingTheTiers) {
  const auto result = testing::run_nmt_with_env("NMT_CPU_ISA=avx3", "score --help");
  EXPECT_EQ(result.exit_code, 0) << "--help still answers: " << result.output;
  const auto refused =
      testing::run_nmt_with_env("NMT_CPU_ISA=avx3", "score --hyp /dev/null --ref /dev/null");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("nmt: error: NMT_CPU_ISA: unknown tier 'avx3' (one of baseline, "
                                "avx2, avx_vnni, avx512, avx512_vnni, avx512_bf16, amx)"),
            std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace nmt
