#include "text/sentencepiece_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "nmt/error.h"

namespace nmt::text {
namespace {

constexpr const char* kModuleName = "libnmt_sentencepiece.so";

// AddressSanitizer aborts on RTLD_DEEPBIND (github.com/google/sanitizers/issues/611), so sanitized
// builds (NMT_ASAN, cmake/NmtSanitizers.cmake) load the module without it. That is safe only where
// LibTorch, and with it the second protobuf, is not in the process, as in NMT_SANITIZE builds.
#ifdef NMT_ASAN
constexpr int kDeepBind = 0;
#else
constexpr int kDeepBind = RTLD_DEEPBIND;
#endif

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("NMT_SENTENCEPIECE_MODULE")) paths.emplace_back(env);
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) paths.push_back((executable.parent_path() / kModuleName).string());
  paths.emplace_back(NMT_SENTENCEPIECE_MODULE_PATH);
  return paths;
}

}  // namespace

std::shared_ptr<SentencePieceBackend> make_sentencepiece_backend() {
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    if (!std::filesystem::exists(path)) {
      tried += "\n  " + path + " (absent)";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | kDeepBind);
    if (!handle) {
      tried += "\n  " + path + " (" + dlerror() + ")";
      continue;
    }
    using Factory = SentencePieceBackend* (*)();
    const auto factory =
        reinterpret_cast<Factory>(dlsym(handle, "nmt_create_sentencepiece_backend"));
    if (!factory) {
      tried += "\n  " + path + " (no nmt_create_sentencepiece_backend)";
      dlclose(handle);
      continue;
    }
    // The deleter destroys the backend first, then releases this reference to the module.
    return std::shared_ptr<SentencePieceBackend>(factory(),
                                                 [handle](SentencePieceBackend* backend) {
                                                   delete backend;
                                                   dlclose(handle);
                                                 });
  }
  throw Error(std::string("cannot load the SentencePiece module ") + kModuleName +
              "; tried:" + tried);
}

}  // namespace nmt::text
