#!/usr/bin/env bash
# Builds here, on a machine without a GPU, what the GPU machine runs (nmt, its SentencePiece module and the CUDA tests) against
# PyPI's torch wheel of the GPU machine's version, and packs it with the Debian libraries it needs
# that scripts/gpu-deps.sh does not (OpenBLAS and its runtime, tcmalloc) into build-gpu/prebuilt.tar.xz:
# `run --carry build-gpu --carry .deps.tar.xz`, and scripts/gpu-bench.sh's build step uses it when it
# runs there (it builds there otherwise), which saves the device minutes of a build (about three).
#   scripts/gpu-prebuild.sh [TORCH_VERSION]        (default 2.11.0: the GPU machine's, KINDS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.11.0}
venv=.venv/torch2-$version
if ! "$venv/bin/python" -c "import torch" 2> /dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$version"
fi
NMT_BUILD_TARGETS="nmt nmt_program nmt_sentencepiece cuda_tests" scripts/build-torch2.sh "$venv/bin/python" build-cuda
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/src" "$stage/tests" "$stage/lib"
cp build-cuda/src/nmt build-cuda/src/nmt-torch build-cuda/src/libnmt_sentencepiece.so "$stage/src/"
cp build-cuda/tests/cuda_tests "$stage/tests/"
# The shared libraries that are neither LibTorch's, the C runtime's nor in .deps.
ldd build-cuda/src/nmt-torch | awk '$3 ~ /^\// {print $1, $3}' |
  grep -E '^lib(blas|openblas|gfortran|quadmath|tcmalloc_minimal)' | while read -r name path; do
    cp -L "$path" "$stage/lib/$name"
  done
mkdir -p build-gpu
tar cJf build-gpu/prebuilt.tar.xz -C "$stage" src tests lib
du -h build-gpu/prebuilt.tar.xz
