#!/usr/bin/env bash
# Runs the Torch-free GoogleTest suites (core without the configuration tests, text, eval, viz,
# serve, import_formats) under AddressSanitizer + UndefinedBehaviorSanitizer:
#
#   scripts/sanitize.sh [CTEST_ARGUMENTS...]
#
# Builds them with clang into build-asan/ (NMT_SANITIZE=ON, which configures no LibTorch target)
# and runs them with ctest; any sanitizer report fails its test. Without arguments every test but
# the `slow` ones runs; arguments go to ctest instead (e.g. -L eval, -R Vocab).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan

generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DNMT_SANITIZE=ON
fi
cmake --build "$build" --parallel "$(nproc)"

export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
ctest_arguments=("$@")
if [[ $# -eq 0 ]]; then ctest_arguments=(-LE slow); fi
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "${ctest_arguments[@]}"
