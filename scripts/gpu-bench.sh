#!/usr/bin/env bash
# On the GPU machine, in one go: build against the wheel's LibTorch, run the test suite (CUDA tests
# included, browser tests excluded), then benchmark nmt against the reference notebook on the same
# GPU. Needs .deps/ from scripts/gpu-deps.sh. Results and logs go to $OUT (or gpu-results/).
#   scripts/gpu-bench.sh [build] [test] [bench] [train]      (default: build test bench)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-results}
mkdir -p "$out"
build=build-gpu
data=.deps/shared/data/tatoeba-en-es/eng-spa.tsv
reference=.deps/shared/reference/seed_transformer.py
export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NMT_SHARED_DIR=$PWD/.deps/shared
nmt=$build/src/nmt
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(build test bench)

has() { local s; for s in "${steps[@]}"; do [[ $s == "$1" ]] && return 0; done; return 1; }
log() { echo "== $* ($(date +%T))"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$out/gpu.txt" 2>&1
if has build; then
  log build
  scripts/gpu-build.sh "$build" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
if has test; then
  log test
  "$build/tests/cuda_tests" > "$out/cuda_tests.log" 2>&1; tail -3 "$out/cuda_tests.log"
  ctest --test-dir "$build" --output-on-failure --parallel 16 -LE browser > "$out/test.log" 2>&1
  grep -E "tests passed|tests failed|\*\*\*Failed|Not Run" "$out/test.log" | tail -15
fi
if has bench; then
  log "notebook on CUDA"
  python3 scripts/notebook_cuda.py "$reference" --data "$data" --steps 300 > "$out/notebook_cuda.jsonl" 2>&1
  tail -1 "$out/notebook_cuda.jsonl"
  for precision in fp32 bf16; do
    log "nmt, notebook settings, $precision"
    "$nmt" -q bench train --config configs/seed.json --data "$data" --device cuda --precision $precision \
      --steps 300 --warmup 20 --json | tee "$out/nmt_seed_${precision}.json"
    "$nmt" -q bench train --config configs/seed.json --data "$data" --device cuda --precision $precision \
      --max-tokens 12000 --steps 150 --warmup 10 --json | tee "$out/nmt_seed_${precision}_tokens12000.json"
  done
  log "nmt, recommended subword configuration"
  "$nmt" -q bench train --config configs/tatoeba-en-es.json --data "$data" --device cuda --steps 150 --warmup 10 \
    --json | tee "$out/nmt_tatoeba_bf16.json"
fi
if has train; then
  log "train configs/tatoeba-en-es.json"
  # Bounded so the call ends in time; SIGTERM makes nmt save a checkpoint and stop cleanly.
  timeout "${NMT_TRAIN_SECONDS:-400}" "$nmt" train --config configs/tatoeba-en-es.json --data "$data" \
    --device cuda --out "$build/run-tatoeba" > "$out/train_tatoeba.log" 2>&1
  tail -4 "$out/train_tatoeba.log"
  "$nmt" eval --model "$build/run-tatoeba" --device cuda --json > "$out/eval_tatoeba.json" 2>&1
  head -c 600 "$out/eval_tatoeba.json"
fi
log done
