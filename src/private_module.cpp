#include "nmt/private_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "nmt/error.h"

namespace nmt {
namespace {

// AddressSanitizer aborts on RTLD_DEEPBIND (github.com/google/sanitizers/issues/611), so sanitized
// builds (NMT_ASAN, cmake/NmtSanitizers.cmake) load modules without it. That is safe only where
// LibTorch, and with it the clashing libraries, is not in the process, as in NMT_SANITIZE builds.
#ifdef NMT_ASAN
constexpr int kDeepBind = 0;
#else
constexpr int kDeepBind = RTLD_DEEPBIND;
#endif

}  // namespace

PrivateModule::PrivateModule(void* handle, std::string path)
    : handle_(handle), path_(std::move(path)) {}

PrivateModule::~PrivateModule() { dlclose(handle_); }

void* PrivateModule::symbol(const char* name) const { return dlsym(handle_, name); }

std::shared_ptr<const PrivateModule> PrivateModule::load(const std::string& file_name,
                                                         const char* environment_variable,
                                                         const std::string& build_path,
                                                         const char* required_symbol) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv(environment_variable)) paths.emplace_back(env);
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) paths.push_back((executable.parent_path() / file_name).string());
  paths.push_back(build_path);
  std::string tried;
  for (const std::string& path : paths) {
    if (!std::filesystem::exists(path)) {
      tried += "\n  " + path + " (absent)";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | kDeepBind);
    if (!handle) {
      tried += "\n  " + path + " (" + dlerror() + ")";
      continue;
    }
    if (!dlsym(handle, required_symbol)) {
      tried += "\n  " + path + " (no " + required_symbol + ")";
      dlclose(handle);
      continue;
    }
    return std::shared_ptr<const PrivateModule>(new PrivateModule(handle, path));
  }
  throw Error("cannot load nmt's module " + file_name + " (set $" + environment_variable +
              " to its path); tried:" + tried);
}

}  // namespace nmt
