#!/usr/bin/env bash
# The test suite against LibTorch 2.x. Makes .venv/torch2 (git-ignored) with PyPI's torch wheel at
# a pinned version, builds nmt and its tests against the LibTorch inside it into build-torch2/
# (scripts/build-torch2.sh) and runs the whole ctest suite there. Extra arguments go to ctest;
# --build-only stops after the build (scripts/test.sh runs the suite itself); --venv-only after
# making the venv (whose torch .venv/hf borrows: scripts/peers/setup-venv.sh).
#
# PyPI's wheel is LibTorch 2.x built with CUDA and NCCL, so this one build is both the 2.x build and
# the CUDA + NCCL variant (every GPU code path and c10d's ProcessGroupNCCL compiled and linked).
# Without a GPU its suite runs on the CPU, exactly the code a CPU-only LibTorch 2.x would run, and the
# CUDA tests report themselves skipped; on a GPU machine the same command runs them on the GPU.
#   NMT_TORCH_VERSION=2.x.y scripts/test-torch2.sh    another wheel (a venv per version)
set -euo pipefail
cd "$(dirname "$0")/.."
# The GPU machine's PyTorch (CUDA 13.0, like /usr/local/cuda here), so both build the same LibTorch.
torch_version=${NMT_TORCH_VERSION:-2.11.0}
venv=.venv/torch2-$torch_version
build=${NMT_TORCH2_BUILD:-build-torch2}

if ! "$venv/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2> /dev/null; then
  echo "test-torch2: creating $venv with torch==$torch_version (about 3 GB with its CUDA libraries)"
  if ! python3 -c 'import venv, ensurepip' 2> /dev/null; then
    scripts/install-deps.sh python3-venv
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$torch_version"; then
    echo "test-torch2: cannot install torch==$torch_version from PyPI (is it reachable?)" >&2
    exit 1
  fi
fi
[[ ${1:-} == --venv-only ]] && exit 0
scripts/build-torch2.sh "$venv/bin/python" "$build" -DNMT_WERROR=ON
"$build/src/nmt" --version
[[ ${1:-} == --build-only ]] && exit 0
# The wheel's OpenMP threads spin while they wait: with two test processes on two cores every small
# operation stalls, so they sleep instead.
OMP_WAIT_POLICY=passive ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
