#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole GoogleTest suite with
# ctest. Tests that need ../shared data carry the label `slow` and skip when it is absent.
# Extra arguments go to ctest (e.g. -LE slow, -R Beam).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
