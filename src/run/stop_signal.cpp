#include "nmt/run/stop_signal.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "nmt/error.h"

namespace nmt::run {
namespace {

// A signal handler can only reach static storage; this state is the one piece of global state in
// nmt: the flag a signal sets, and while exiting at once is on, the line it prints first.
std::atomic<bool> g_stop_requested{false};
std::atomic<bool> g_exits_at_once{false};
char g_exit_message[1024] = {0};
std::atomic<std::size_t> g_exit_message_size{0};

extern "C" void on_stop_signal(int) {
  if (!g_exits_at_once.load()) {
    g_stop_requested.store(true);
    return;
  }
  // Only async-signal-safe calls from here on: write(2) and _exit(2).
  (void)!::write(STDERR_FILENO, g_exit_message, g_exit_message_size.load());
  ::_exit(130);
}

}  // namespace

StopOnSignal::StopOnSignal() {
  g_stop_requested.store(false);
  g_exits_at_once.store(false);
  previous_int_ = std::signal(SIGINT, on_stop_signal);
  previous_term_ = std::signal(SIGTERM, on_stop_signal);
}

StopOnSignal::~StopOnSignal() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
  g_exits_at_once.store(false);
}

const std::atomic<bool>& StopOnSignal::requested() const { return g_stop_requested; }

void StopOnSignal::exit_at_once(const std::string& message) {
  g_exits_at_once.store(false);  // the handler never reads a message being replaced
  const std::string line = "nmt: " + message;
  const std::size_t size = std::min(line.size(), sizeof g_exit_message - 1);
  std::memcpy(g_exit_message, line.data(), size);
  g_exit_message[size] = '\n';
  g_exit_message_size.store(size + 1);
  g_exits_at_once.store(true);
  if (g_stop_requested.load()) {
    g_exits_at_once.store(false);
    throw Interrupted(message);
  }
}

void StopOnSignal::request_stop_instead() { g_exits_at_once.store(false); }

}  // namespace nmt::run
