// Running the nmt binary under test in the background: for tests that kill it or run several
// at once (crash-resume, distributed ranks).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace nmt::testing {

// The nmt binary under test in its own process, its output in a file; extra environment variables
// (a rank's RANK, WORLD_SIZE, ...) set for it alone. Killed with SIGKILL if still running when
// destroyed.
class NmtProcess {
 public:
  NmtProcess(const std::vector<std::string>& arguments,
             const std::string& log,
             const std::vector<std::pair<std::string, std::string>>& environment = {}) {
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
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
    if (waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
    finished_ = true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_code_;
  }
  int wait() {
    while (!poll()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return exit_code_;
  }
  pid_t pid() const { return pid_; }
  void send(int signal) { ::kill(pid_, signal); }
  void kill_now() {
    ::kill(pid_, SIGKILL);
    wait();
  }

 private:
  pid_t pid_ = -1;
  bool finished_ = false;
  int exit_code_ = -1;
};

}  // namespace nmt::testing
