#!/usr/bin/env bash
# Builds nmt on the offline GPU machine against the LibTorch inside its PyTorch wheel (2.x, CUDA)
# and the Debian packages that scripts/gpu-deps.sh unpacked into .deps/root.
#   scripts/gpu-build.sh [BUILD_DIR]        (default /tmp/nmt-gpu-build)
# Afterwards: source the printed environment line (LD_LIBRARY_PATH for the .deps libraries).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-/tmp/nmt-gpu-build}
deps=$PWD/.deps/root/usr
[[ -d "$deps" ]] || { echo "gpu-build: .deps/root is missing; run scripts/gpu-deps.sh on a Debian machine first" >&2; exit 1; }
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
python3 -c 'import torch; assert torch.compiled_with_cxx11_abi(), "the wheel must use the C++11 ABI"'
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# nccl.h for c10d's NCCL process group (distributed training on CUDA ranks) lives in the wheel's
# nvidia-nccl dependency.
nccl_include=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))' 2>/dev/null || true)
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$deps" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
  -DNMT_NCCL_INCLUDE_HINT="$nccl_include"
cmake --build "$build" --parallel "$(nproc)"
echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
