// nmt, the command users run: a launcher without LibTorch that puts into the environment what the
// libraries read once, when they are loaded — NMT_CPU_ISA's cap (ATEN_CPU_CAPABILITY,
// ONEDNN_MAX_CPU_ISA, OPENBLAS_CORETYPE) and, on a CPU OpenBLAS does not know, the kernel set the
// CPU allows — and then becomes nmt-torch, the program beside it, with the same arguments.
// Without it, nmt-torch learns what to set only after LibTorch is loaded and starts itself again:
// a second load of LibTorch at every capped or unknown-CPU start (about 0.5 s, issue 67).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "nmt/cpu_features.h"

namespace {

// The BLAS that Debian's LibTorch links (an alternative that names OpenBLAS where it is installed),
// so that the launcher asks the library the program will load.
constexpr const char* kLibTorchBlas = "libblas.so.3";

constexpr const char* kProgram = "nmt-torch";

}  // namespace

int main(int, char** argv) {
  nmt::cap_libraries_at_cpu_tier();
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    nmt::raise_openblas_to_cpu(nmt::openblas_core_of(kLibTorchBlas));
  }
  std::error_code error;
  const std::filesystem::path launcher = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string program =
      ((error ? std::filesystem::path(argv[0]).parent_path() : launcher.parent_path()) / kProgram)
          .string();
  execv(program.c_str(), argv);
  std::fprintf(stderr, "nmt: error: cannot start %s: %s\n", program.c_str(), std::strerror(errno));
  return 127;
}
