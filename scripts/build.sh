#!/usr/bin/env bash
# Configures and builds nmt (Release) into build/. Extra arguments go to cmake's configure step
# (also when build/ is already configured: they update its cache).
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
elif [[ $# -gt 0 ]]; then
  cmake -S . -B build "$@" > /dev/null
fi
cmake --build build --parallel "$(nproc)"
