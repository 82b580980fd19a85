#!/usr/bin/env bash
# Builds nmt on the offline GPU machine: scripts/build-torch2.sh (the build CI runs against PyPI's
# torch wheel) against that machine's own PyTorch (2.x, CUDA) and the Debian packages that
# scripts/gpu-deps.sh unpacked into .deps/root.
#   scripts/gpu-build.sh [BUILD_DIR]        (default /tmp/nmt-gpu-build)
# Afterwards: source the printed environment line (LD_LIBRARY_PATH for the .deps libraries).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-/tmp/nmt-gpu-build}
deps=$PWD/.deps/root/usr
[[ -d "$deps" ]] || { echo "gpu-build: .deps/root is missing; run scripts/gpu-deps.sh on a Debian machine first" >&2; exit 1; }
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NMT_EXTRA_PREFIX=$deps scripts/build-torch2.sh python3 "$build"
echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
