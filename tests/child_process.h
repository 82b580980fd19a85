// Running the nmt binary under test in the background: for tests that kill it or run several
// at once (crash-resume, distributed ranks).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_utils.h"

namespace nmt::testing {

// How to start it besides its arguments.
struct LaunchOptions {
  // Set for it alone (a rank's RANK, WORLD_SIZE, ...).
  std::vector<std::pair<std::string, std::string>> environment;
  std::string working_directory;               // "": the test's own
  rlim_t address_space_bytes = RLIM_INFINITY;  // `ulimit -v`
};

// The nmt binary under test in its own process, its output in a file. Killed with SIGKILL if still
// running when destroyed.
class NmtProcess {
 public:
  NmtProcess(const std::vector<std::string>& arguments,
             const std::string& log,
             const std::vector<std::pair<std::string, std::string>>& environment = {})
      : NmtProcess(arguments, log, LaunchOptions{environment, "", RLIM_INFINITY}) {}

  NmtProcess(const std::vector<std::string>& arguments,
             const std::string& log,
             const LaunchOptions& options) {
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      for (const auto& [name, value] : options.environment) {
        setenv(name.c_str(), value.c_str(), 1);
      }
      if (!options.working_directory.empty() && chdir(options.working_directory.c_str()) != 0) {
        _exit(126);
      }
      const rlimit limit{options.address_space_bytes, options.address_space_bytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
      std::vector<char*> argv{const_cast<char*>(NMT_BINARY)};
      for (const std::string& argument : arguments)
        argv.push_back(const_cast<char*>(argument.c_str()));
      argv.push_back(nullptr);
      execv(NMT_BINARY, argv.data());
      _exit(127);
    }
  }
  ~NmtProcess() {
    if (!finished_) kill_now();
  }
  NmtProcess(const NmtProcess&) = delete;
  NmtProcess& operator=(const NmtProcess&) = delete;

  // The exit code once it has ended, without waiting.
  std::optional<int> poll() {
    if (finished_) return exit_code_;
    int status = 0;
    rusage usage{};
    if (wait4(pid_, &status, WNOHANG, &usage) != pid_) return std::nullopt;
    finished_ = true;
    peak_resident_kib_ = usage.ru_maxrss;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_code_;
  }
  int wait() {
    while (!poll()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return exit_code_;
  }
  pid_t pid() const { return pid_; }
  // Its peak resident memory once it has ended (wait4's ru_maxrss), in KiB.
  long peak_resident_kib() const { return peak_resident_kib_; }
  void send(int signal) { ::kill(pid_, signal); }
  void kill_now() {
    ::kill(pid_, SIGKILL);
    wait();
  }

 private:
  pid_t pid_ = -1;
  bool finished_ = false;
  int exit_code_ = -1;
  long peak_resident_kib_ = 0;
};

// The memory of an nmt process whose libraries are loaded, before it reads any data: address
// space under 1 GiB with Debian's LibTorch and several GiB with a CUDA one; resident memory about
// 170 MiB and 470 MiB. Read while nmt waits to open a FIFO nobody writes yet; -1 when unknown.
struct LoadedMemory {
  int64_t address_space_kib = -1;  // VmSize
  int64_t resident_kib = -1;       // VmRSS
};

inline LoadedMemory loaded_memory(const ScratchDir& dir) {
  const std::string fifo = dir.file("hypotheses.fifo");
  const std::string references = dir.write("references.txt", "x\n");
  LoadedMemory memory;
  if (mkfifo(fifo.c_str(), 0600) != 0) return memory;
  const pid_t pid = fork();
  if (pid == 0) {
    execl(NMT_BINARY, NMT_BINARY, "score", "--hyp", fifo.c_str(), "--ref", references.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const int writer = open(fifo.c_str(), O_WRONLY);  // returns once nmt opens it: main is running
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) memory.address_space_kib = std::stoll(line.substr(7));
    if (line.rfind("VmRSS:", 0) == 0) memory.resident_kib = std::stoll(line.substr(6));
  }
  if (writer >= 0) close(writer);
  waitpid(pid, nullptr, 0);
  std::remove(fifo.c_str());
  return memory;
}

}  // namespace nmt::testing
