#include "nmt/run/stop_signal.h"

#include <csignal>

namespace nmt::run {
namespace {

// A signal handler can only reach static storage; this flag is the one piece of global state in
// nmt.
std::atomic<bool> g_stop_requested{false};

extern "C" void request_stop(int) { g_stop_requested.store(true); }

}  // namespace

StopOnSignal::StopOnSignal() {
  g_stop_requested.store(false);
  previous_int_ = std::signal(SIGINT, request_stop);
  previous_term_ = std::signal(SIGTERM, request_stop);
}

StopOnSignal::~StopOnSignal() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

const std::atomic<bool>& StopOnSignal::requested() const { return g_stop_requested; }

}  // namespace nmt::run
