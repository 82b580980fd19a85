#include "nmt/crash_report.h"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <initializer_list>
#include <cstring>

namespace nmt {
namespace {

extern "C" void report_and_reraise(int signal_number) {
  // Only async-signal-safe calls here: write(2) and backtrace_symbols_fd.
  const char* name = strsignal(signal_number);
  const char header[] = "\nnmt: fatal signal: ";
  (void)!write(STDERR_FILENO, header, sizeof header - 1);
  (void)!write(STDERR_FILENO, name, std::strlen(name));
  (void)!write(STDERR_FILENO, "\n", 1);
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void install_crash_report() {
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    std::signal(signal_number, report_and_reraise);
  }
}

}  // namespace nmt
