#!/usr/bin/env bash
# Configures and builds nmt and its tests against the LibTorch 2.x inside a PyTorch wheel: the one a
# Python interpreter imports as `torch` (its CMake package is under torch/share/cmake).
#   scripts/build-torch2.sh PYTHON BUILD_DIR [CMAKE_ARGS...]
# PyPI's Linux wheels are built with CUDA and NCCL, so against them this is the CUDA + NCCL variant:
# LibTorch's CUDA libraries are linked, c10d's ProcessGroupNCCL is compiled in (USE_C10D_NCCL) and
# `nmt --version` says so. It needs the CUDA toolkit (nvcc, /usr/local/cuda) to configure and link,
# not a GPU to run: without one every CUDA check answers "not available" and nmt runs on the CPU.
# Used by scripts/test-torch2.sh (a pinned wheel in a venv, CI) and scripts/gpu-build.sh (the GPU
# machine's own PyTorch); NMT_EXTRA_PREFIX adds directories to CMAKE_PREFIX_PATH (the GPU machine's
# unpacked Debian packages). NMT_BUILD_TARGETS (e.g. "nmt nmt_program cuda_tests") builds only those
# targets, where the device minutes of a GPU machine would be spent on test binaries it won't run.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { echo "usage: scripts/build-torch2.sh PYTHON BUILD_DIR [CMAKE_ARGS...]" >&2; exit 2; }
python=$1
build=$2
shift 2

torch_info=$("$python" - <<'PY'
import os, torch
print(torch.utils.cmake_prefix_path)
print(torch.__version__)
print(int(torch.compiled_with_cxx11_abi()))
print(torch.version.cuda or "")
try:
    import nvidia.nccl
    print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))
except ImportError:
    print("")
PY
)
mapfile -t info <<< "$torch_info"
torch_prefix=${info[0]}
torch_version=${info[1]}
cxx11_abi=${info[2]}
cuda_version=${info[3]}
nccl_include=${info[4]}
# Debian's libraries (spdlog, SentencePiece, gtest...) use the C++11 ABI; so must LibTorch.
if [[ $cxx11_abi != 1 ]]; then
  echo "build-torch2: torch $torch_version was built with the pre-C++11 ABI; nmt needs a C++11-ABI LibTorch" >&2
  exit 1
fi

# torch_prefix is torch/share/cmake; its parent's parent, the torch package, holds lib/ and include/.
# Listing it first makes every LibTorch library come from the wheel even where Debian's libtorch-dev
# is installed too (TorchConfig's own hints come after the system directories).
torch_root=$(dirname "$(dirname "$torch_prefix")")
# A unity build (CMake's batches of 8 sources per translation unit): LibTorch's headers cost about
# 15 s a unit. CI's build of this variant took 6 min 55 s as a unity build, against 13-20 minutes
# with one unit per source (2 cores, 2026-11-28).
# build/ (scripts/build.sh, LibTorch 1.13) stays one unit per source, so it is the build that
# proves each file includes what it uses.
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON
  "-DCMAKE_PREFIX_PATH=$torch_root;$torch_prefix${NMT_EXTRA_PREFIX:+;$NMT_EXTRA_PREFIX}")
if [[ -n $cuda_version ]]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [[ -x $nvcc ]] || { echo "build-torch2: torch $torch_version uses CUDA $cuda_version: its CMake package needs the CUDA toolkit (nvcc), found none" >&2; exit 1; }
  cmake_args+=("-DCMAKE_CUDA_COMPILER=$nvcc")
  # c10d's NCCL header includes nccl.h: the one of the wheel's own NCCL (nvidia-nccl) first.
  [[ -n $nccl_include ]] && cmake_args+=("-DNMT_NCCL_INCLUDE_HINT=$nccl_include")
fi
if command -v ninja > /dev/null; then cmake_args+=(-G Ninja); fi

echo "build-torch2: LibTorch $torch_version (CUDA ${cuda_version:-none}) from $torch_prefix into $build"
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" "${cmake_args[@]}" "$@"
fi
read -r -a targets <<< "${NMT_BUILD_TARGETS:-}"
cmake --build "$build" --parallel "$(nproc)" ${targets[@]+--target "${targets[@]}"}
