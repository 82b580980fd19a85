// On a fatal signal (segmentation fault, bus error, illegal instruction, floating-point error,
// abort) print the signal and a stack trace to stderr, then die with the signal as before, so that
// a crash report says where it happened. Used by the nmt binary and the CUDA tests.
#pragma once

namespace nmt {

void install_crash_report();

}  // namespace nmt
