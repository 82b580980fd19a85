// Helpers shared by the libFuzzer targets of tests/fuzz: the input as text, a scratch file for the
// parsers that only read paths, and a check whose failure libFuzzer records as a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace nmt::fuzz {

inline std::string_view as_text(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property of the code under test that must hold for every input. A violation aborts, which
// libFuzzer reports as a crash and saves the input for.
#define NMT_FUZZ_CHECK(condition, what)                                                     \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property violated: %s (%s)\n", __FILE__, __LINE__, what, \
                   #condition);                                                             \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)

// One file per fuzzing process, rewritten with each input, for parsers that take a path. It lives
// in the system temp directory and is removed when the process ends normally.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("nmt-fuzz-" + std::to_string(::getpid()) + "-" + name))
                  .string()) {}
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's content; returns its path.
  const std::string& write(std::string_view content) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    NMT_FUZZ_CHECK(out.good(), "the scratch file can be written");
    return path_;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace nmt::fuzz
