#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole GoogleTest suite with
# ctest. Tests that need ../shared data carry the label `slow` and skip when it is absent.
# Extra arguments go to ctest (e.g. -LE slow, -L decode, -R Beam). Modules that load LibTorch run
# their tests in one process each (tests/CMakeLists.txt); pick one of those with
# build/tests/<module>_tests --gtest_filter=Suite.Name.
# Without arguments (the whole suite, as CI runs it) it goes on to the Torch-free suites under
# AddressSanitizer + UBSan (scripts/sanitize.sh, build-asan/) and a few seconds of each fuzz
# target (scripts/fuzz.sh, build-fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
if [[ $# -eq 0 ]]; then
  scripts/sanitize.sh
  scripts/fuzz.sh 5
fi
