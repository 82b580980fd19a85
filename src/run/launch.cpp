#include "nmt/run/launch.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "nmt/error.h"

namespace nmt::run {

namespace {

using Clock = std::chrono::steady_clock;

// The ranks' process ids, for the signal handler.
constexpr int kMaxRanks = 1024;
pid_t g_rank_pids[kMaxRanks];
volatile std::sig_atomic_t g_rank_count = 0;
volatile std::sig_atomic_t g_forwarded_signal = 0;

void forward_signal(int signal) {
  g_forwarded_signal = signal;
  for (int i = 0; i < g_rank_count; ++i) {
    if (g_rank_pids[i] > 0) ::kill(g_rank_pids[i], signal);
  }
}

// A port that was free a moment ago on the loopback interface.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("--nproc: cannot open a socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error = errno;
    ::close(fd);
    throw Error(std::string("--nproc: cannot find a free port: ") + std::strerror(error));
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

[[noreturn]] void exec_self(const std::vector<std::string>& arguments, const std::string& what) {
  std::vector<char*> argv;
  std::string program = "/proc/self/exe";
  argv.push_back(program.data());
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  std::fprintf(stderr, "nmt: error: %s: cannot start: %s\n", what.c_str(), std::strerror(errno));
  std::_Exit(127);
}

[[noreturn]] void exec_rank(int rank,
                            int ranks,
                            int port,
                            const std::vector<std::string>& arguments) {
  ::setenv("RANK", std::to_string(rank).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  ::setenv("WORLD_SIZE", std::to_string(ranks).c_str(), 1);
  ::setenv("LOCAL_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  exec_self(arguments, "rank " + std::to_string(rank));
}

void forward_signals_to_children() {
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string describe_end(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

std::vector<std::string> arguments_without_nproc() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> all;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\0', start);
    all.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::vector<std::string> arguments;
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i] == "--nproc") {
      ++i;  // and its value
    } else if (all[i].rfind("--nproc=", 0) != 0) {
      arguments.push_back(all[i]);
    }
  }
  return arguments;
}

int launch_local_ranks(int ranks, const std::vector<std::string>& arguments) {
  if (ranks < 1 || ranks > kMaxRanks) {
    throw ConfigError("--nproc: expected 1 to " + std::to_string(kMaxRanks) + " ranks, got " +
                      std::to_string(ranks));
  }
  if (std::getenv("RANK") || std::getenv("WORLD_SIZE")) {
    throw ConfigError("--nproc: this process is already a rank of a job (RANK/WORLD_SIZE set)");
  }
  const int port = free_port();
  spdlog::info("starting {} ranks on this machine (rendezvous at 127.0.0.1:{})", ranks, port);
  forward_signals_to_children();

  for (int rank = 0; rank < ranks; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      forward_signal(SIGTERM);
      throw Error(std::string("--nproc: cannot start rank ") + std::to_string(rank) + ": " +
                  std::strerror(errno));
    }
    if (pid == 0) exec_rank(rank, ranks, port, arguments);
    g_rank_pids[rank] = pid;
    g_rank_count = rank + 1;
  }

  // A failed rank gives the others this long to notice and stop by themselves.
  constexpr auto kGrace = std::chrono::seconds(30);
  int running = ranks;
  bool any_failed = false;
  bool any_interrupted = false;
  bool is_counting_down = false;
  Clock::time_point kill_at;
  while (running > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      if (is_counting_down && Clock::now() >= kill_at) {
        spdlog::error("killing the ranks still running {} s after a rank failed",
                      std::chrono::duration_cast<std::chrono::seconds>(kGrace).count());
        forward_signal(SIGKILL);
        is_counting_down = false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    int rank = 0;
    while (rank < ranks && g_rank_pids[rank] != pid) ++rank;
    if (rank == ranks) continue;
    g_rank_pids[rank] = 0;
    --running;
    const bool succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool interrupted = WIFEXITED(status) && WEXITSTATUS(status) == 130;
    if (succeeded) continue;
    if (interrupted) {
      any_interrupted = true;
      continue;
    }
    spdlog::error("rank {} {}", rank, describe_end(status));
    if (!any_failed && running > 0) {
      is_counting_down = true;
      kill_at = Clock::now() + kGrace;
    }
    any_failed = true;
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (any_failed) return 1;
  return any_interrupted || g_forwarded_signal ? 130 : 0;
}

int run_plain_process(const std::vector<std::string>& arguments, const std::string& stdout_path) {
  forward_signals_to_children();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("cannot start a process: ") + std::strerror(errno));
  if (pid == 0) {
    const int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || ::dup2(out, STDOUT_FILENO) < 0) {
      std::fprintf(stderr, "nmt: error: cannot write %s: %s\n", stdout_path.c_str(),
                   std::strerror(errno));
      std::_Exit(127);
    }
    exec_self(arguments, "the single process");
  }
  g_rank_pids[0] = pid;
  g_rank_count = 1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_rank_count = 0;
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace nmt::run
