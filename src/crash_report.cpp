#include "nmt/crash_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace nmt {
namespace {

void write_text(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

// "  0x7f.. libfoo.so(symbol+0x12)" for one code address.
void describe_address(const char* label, void* address) {
  Dl_info info{};
  char line[512];
  if (address != nullptr && dladdr(address, &info) != 0) {
    const auto base = reinterpret_cast<uintptr_t>(info.dli_saddr ? info.dli_saddr : info.dli_fbase);
    std::snprintf(line, sizeof line, "  %s %p %s(%s+0x%lx)\n", label, address,
                  info.dli_fname ? info.dli_fname : "?", info.dli_sname ? info.dli_sname : "",
                  static_cast<unsigned long>(reinterpret_cast<uintptr_t>(address) - base));
  } else {
    std::snprintf(line, sizeof line, "  %s %p\n", label, address);
  }
  write_text(line);
}

extern "C" void report_and_reraise(int signal_number, siginfo_t* info, void* context) {
  write_text("\nnmt: fatal signal: ");
  write_text(strsignal(signal_number));
  write_text("\n");
  describe_address("fault address", info ? info->si_addr : nullptr);
#if defined(__x86_64__)
  // When the fault is a call through a null pointer the unwinder cannot get past it; the
  // instruction pointer and the return address on top of the stack still say who called.
  const auto* machine = &static_cast<ucontext_t*>(context)->uc_mcontext;
  describe_address("instruction", reinterpret_cast<void*>(machine->gregs[REG_RIP]));
  describe_address("caller", *reinterpret_cast<void* const*>(machine->gregs[REG_RSP]));
#else
  (void)context;
#endif
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void install_crash_report() {
  struct sigaction action {};
  action.sa_sigaction = report_and_reraise;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    sigaction(signal_number, &action, nullptr);
}

}  // namespace nmt
