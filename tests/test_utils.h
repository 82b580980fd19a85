// Helpers shared by the test executables: scratch directories, paths to the project's and the
// shared data, running the nmt binary.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "nmt/io.h"

namespace nmt::testing {

// A fresh directory under the system temp dir, removed with its content on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device device;
    path_ = std::filesystem::temp_directory_path() / ("nmt-test-" + std::to_string(device()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { remove_tree(path_.string()); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

  // Writes content to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream out(file(name), std::ios::binary);
    out << content;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

// Makes path a symbolic link to /dev/full, where every write fails with ENOSPC ("No space left on
// device") as on a full filesystem; false where the system has no /dev/full.
inline bool link_to_full_device(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists("/dev/full", error)) return false;
  std::filesystem::create_symlink("/dev/full", path, error);
  return !error;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The shared Tatoeba file, from $NMT_SHARED_DIR or the checkout's ../shared; "" when absent.
inline std::string shared_tatoeba_path() {
  const char* env = std::getenv("NMT_SHARED_DIR");
  const std::string root = env ? env : NMT_SHARED_DIR;
  const std::string path = root + "/data/tatoeba-en-es/eng-spa.tsv";
  return std::filesystem::exists(path) ? path : "";
}

inline std::string shared_dir() {
  const char* env = std::getenv("NMT_SHARED_DIR");
  return env ? env : NMT_SHARED_DIR;
}

inline std::string source_dir() { return NMT_SOURCE_DIR; }

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command, capturing its output.
inline CommandResult run_command(const std::string& command) {
  ScratchDir scratch;
  const std::string log = scratch.file("output.txt");
  const int status = std::system((command + " > '" + log + "' 2>&1").c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.output = read_file(log);
  return result;
}

// Runs the nmt binary under test with arguments (already shell-quoted).
inline CommandResult run_nmt(const std::string& arguments) {
  return run_command(std::string("'") + NMT_BINARY + "' " + arguments);
}

// run_nmt with `assignments` ("NAME=value ...") added to its environment.
inline CommandResult run_nmt_with_env(const std::string& assignments,
                                      const std::string& arguments) {
  return run_command("env " + assignments + " '" + NMT_BINARY + "' " + arguments);
}

}  // namespace nmt::testing
