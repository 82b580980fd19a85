#!/usr/bin/env bash
# On the GPU machine, in one go, the steps named (in the order named):
#   build      build against the wheel's LibTorch (scripts/gpu-build.sh; needs .deps/ from
#              scripts/gpu-deps.sh), unless the build carried from scripts/gpu-prebuild.sh runs
#   cuda       the CUDA tests on the GPU
#   bench      training throughput: the reference notebook on CUDA, then nmt at the notebook's
#              settings and with the recommended configuration
#   translate  a short training of the recommended configuration (NMT_TRAIN_SECONDS, default 100),
#              its test scores, and translation throughput on the GPU (greedy and beam 5, fp32 and
#              bf16, NMT_TRANSLATE_SENTENCES held-out sentences, default 2000)
#   profile    after translate: greedy decoding of 256 sentences in fp32 and in bf16 under
#              LibTorch's profiler with CUDA_LAUNCH_BLOCKING=1 (so each operator's time is its
#              kernels'), the two summed per operator side by side
#   train      a longer training of the recommended configuration (NMT_TRAIN_SECONDS, default 400)
#   test       the whole ctest suite (browser tests excluded), stopped at NMT_GPU_DEADLINE seconds
#              after the script started (default 540) so the call ends with its logs
#   distil     issue 68's experiment on the GPU, sized to end by NMT_GPU_DEADLINE
#              (scripts/distil-experiment.sh with DEVICE=cuda): three teachers of the recipe side by
#              side for half of what the fixed steps leave, greedy and beam decoding of the first in
#              fp32 and bf16 (translate.jsonl), their ensemble's corpus, then the two students and
#              the baseline side by side for what is left; scored on the GPU, int8 speed on 2 of
#              the host's cores; its record packed as distil.tar.gz after each phase
#   robust     issue 64's converged comparison (scripts/robust-text-experiment.sh with DEVICE=cuda:
#              the recipe against long and joined pairs, with and without placeholders), its record
#              packed as robust.tar.gz
# Results, logs and machine.txt (GPU, CPU, commit, date) go to $OUT (or gpu-results/), in at most 8
# files (what the device tool returns): machine.txt, build.log, cuda_tests.log, bench.jsonl (one
# line per benchmark: training, the notebook's first, then translation), train_tatoeba.log,
# eval_tatoeba.json, profile.md, test.log; distil.tar.gz (with distil.log), translate.jsonl and
# robust.tar.gz. NMT_BUILD_TARGETS limits the build (scripts/build-torch2.sh).
#   scripts/gpu-bench.sh [STEP...]      (default: build cuda bench test)
# The machine has no .git: pass the commit as NMT_COMMIT=$(git rev-parse HEAD) from the checkout.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
out=${OUT:-gpu-results}
mkdir -p "$out"
build=${NMT_GPU_BUILD:-build-gpu}
data=.deps/shared/data/tatoeba-en-es/eng-spa.tsv
reference=.deps/shared/reference/seed_transformer.py
export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NMT_SHARED_DIR=$PWD/.deps/shared
nmt=$build/src/nmt
# The device of the distil step and the decoding benchmarks: NMT_GPU_DEVICE=auto (with
# NMT_GPU_BUILD=build, a CPU build) rehearses them on a machine without a GPU.
device=${NMT_GPU_DEVICE:-cuda}
# What scripts/gpu-deps.sh packed, carried as one file.
if [[ ! -d .deps && -f .deps.tar.xz ]]; then tar xJf .deps.tar.xz; fi
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(build cuda bench test)

log() { echo "== $* ($(date +%T), $((SECONDS - started)) s)"; }

record_machine() {
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "commit: ${NMT_COMMIT:-$(git rev-parse HEAD 2> /dev/null || echo unknown)}"
    echo "command: scripts/gpu-bench.sh ${steps[*]}"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
    lscpu | grep -E '^(Model name|CPU\(s\)|Flags)'
  } > "$out/machine.txt" 2>&1
}

# A build carried from scripts/gpu-prebuild.sh is used when it runs here and sees the GPU; else nmt
# is built here.
use_prebuilt() {
  [[ -f $build/prebuilt.tar.xz ]] || return 1
  tar xJf "$build/prebuilt.tar.xz" -C "$build"
  local torch_lib
  torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$build/lib:$torch_lib
  # The path built in is the build machine's.
  export NMT_SENTENCEPIECE_MODULE=$PWD/$build/src/libnmt_sentencepiece.so
  "$nmt" --version > "$out/build.log" 2>&1
  if grep -q 'CUDA *yes ([0-9]' "$out/build.log"; then
    echo "build: the carried build (scripts/gpu-prebuild.sh) runs here and sees the GPU"
    return 0
  fi
  echo "build: the carried build does not run here or sees no GPU; building here"
  cat "$out/build.log"
  rm -rf "${build:?}/src" "${build:?}/tests" "${build:?}/lib"
  return 1
}

step_build() {
  use_prebuilt && return
  scripts/gpu-build.sh "$build" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
}

step_cuda() {
  "$build/tests/cuda_tests" > "$out/cuda_tests.log" 2>&1
  tail -3 "$out/cuda_tests.log"
}

step_bench() {
  python3 scripts/notebook_cuda.py "$reference" --data "$data" --steps 300 > "$out/notebook.log" 2>&1
  tail -1 "$out/notebook.log" | sed 's/^{/{"tool": "notebook", "batching": "batch_size 128", /' | tee -a "$out/bench.jsonl"
  rm "$out/notebook.log"
  local precision
  for precision in fp32 bf16; do
    "$nmt" -q bench train --config configs/seed.json --data "$data" --device cuda --precision $precision \
      --steps 300 --warmup 20 --json | tee -a "$out/bench.jsonl"
    "$nmt" -q bench train --config configs/seed.json --data "$data" --device cuda --precision $precision \
      --max-tokens 12000 --steps 150 --warmup 10 --json | tee -a "$out/bench.jsonl"
  done
  "$nmt" -q bench train --config configs/tatoeba-en-es.json --data "$data" --device cuda --steps 150 --warmup 10 \
    --json | tee -a "$out/bench.jsonl"
}

# Trains configs/tatoeba-en-es.json for $1 seconds on the GPU (SIGTERM saves and stops cleanly),
# then scores it on its test split.
train_and_eval() {
  timeout "$1" "$nmt" train --config configs/tatoeba-en-es.json --device cuda --out "$build/run-tatoeba" \
    > "$out/train_tatoeba.log" 2>&1
  tail -4 "$out/train_tatoeba.log"
  "$nmt" eval --model "$build/run-tatoeba" --device cuda --json > "$out/eval_tatoeba.json" 2>&1
  head -c 600 "$out/eval_tatoeba.json"; echo
}

# Translation throughput of one run on the GPU, greedy and beam 5, fp32 and bf16, each bounded to a
# minute (bf16 ran at 1/16 of fp32's speed on 2026-11-28).
bench_decoding() {  # run directory, sentences, JSONL file
  local precision strategy
  for precision in fp32 bf16; do
    for strategy in greedy beam; do
      timeout 60 "$nmt" -q bench translate --model "$1" --device "$device" --precision $precision \
        --strategy $strategy --beam-size 5 --n "$2" --json | tee -a "$3"
    done
  done
}

step_translate() {
  train_and_eval "${NMT_TRAIN_SECONDS:-100}"
  bench_decoding "$build/run-tatoeba" "${NMT_TRANSLATE_SENTENCES:-2000}" "$out/bench.jsonl"
}

step_profile() {
  local precision
  for precision in fp32 bf16; do
    CUDA_LAUNCH_BLOCKING=1 "$nmt" -q bench translate --model "$build/run-tatoeba" --device cuda \
      --precision $precision --strategy greedy --n 256 --profile "$build/profile-$precision.json" --json
  done
  python3 scripts/profile-ops.py "$build/profile-fp32.json" "$build/profile-bf16.json" --steps 1 \
    --top 30 | tee "$out/profile.md"
}

step_train() {
  train_and_eval "${NMT_TRAIN_SECONDS:-400}"
}

seconds_left() { echo $(( ${NMT_GPU_DEADLINE:-540} - (SECONDS - started) )); }

step_test() {
  local left
  left=$(seconds_left)
  if (( left < 30 )); then echo "test: only ${left} s left before the deadline, not started"; return; fi
  timeout "$left" ctest --test-dir "$build" --output-on-failure --parallel 16 -LE browser > "$out/test.log" 2>&1
  echo "ctest exit $? (124: stopped at the deadline)"
  grep -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" "$out/test.log" | tail -15
}

# Runs an experiment script (its steps skip what its record already holds, so a second call goes
# on), its log in $out, then packs its record as one file; its runs stay in $build.
experiment() {  # name, script, environment assignments...
  local name=$1 script=$2 status
  shift 2
  env "$@" NMT="$nmt" "$script" "$build/$name-record" "$build/$name-work" >> "$out/$name.log" 2>&1
  status=$?
  echo "$name: exit $status"
  tail -3 "$out/$name.log"
  cp "$out/$name.log" "$build/$name-record/"
  cp "$out/machine.txt" "$build/$name-record/gpu-machine.txt"
  tar czf "$out/$name.tar.gz" -C "$build" "$name-record"
  return "$status"
}

# The device's minutes are few, so the experiment is sized to what is left before the deadline: the
# steps besides training take about DISTIL_FIXED seconds (decoding benchmarks, the ensemble's
# corpus, the data phases, scoring, speed), the teachers get 3/5 of the rest (distillation pays only
# when they are better than what the students' own time reaches), and the students and the baseline
# what is left once the corpus is made, less DISTIL_FINAL (scoring and speed), at most the teachers'.
step_distil() {
  local settings=(DEVICE="$device" SCORE_DEVICE="$device" WARMUP=1000 TEACHER_SEEDS="24 25 27"
                  SPEED_CPUS=0,1 ROUNDS=3 N=1000)
  local teachers=$(( ($(seconds_left) - ${DISTIL_FIXED:-295}) * 3 / 5 )) phase
  if (( teachers < 30 )); then echo "distil: ${teachers} s for the teachers, not started"; return; fi
  phase=$teachers
  experiment distil scripts/distil-experiment.sh "${settings[@]}" T="${phase}s" STOP_AFTER=teachers ||
    return
  bench_decoding "$build/distil-work/teacher-24" "${NMT_TRANSLATE_SENTENCES:-1000}" "$out/translate.jsonl"
  experiment distil scripts/distil-experiment.sh "${settings[@]}" T="${phase}s" STOP_AFTER=corpus ||
    return
  phase=$(( $(seconds_left) - ${DISTIL_FINAL:-130} ))
  (( phase <= teachers )) || phase=$teachers
  if (( phase < 30 )); then echo "distil: ${phase} s left for the students, not started"; return; fi
  experiment distil scripts/distil-experiment.sh "${settings[@]}" T="${phase}s"
}

step_robust() {
  experiment robust scripts/robust-text-experiment.sh DEVICE=cuda
}

record_machine
for step in "${steps[@]}"; do
  if [[ $(type -t "step_$step") != function ]]; then
    echo "gpu-bench: unknown step '$step' (build, cuda, bench, translate, profile, train, test, distil, robust)" >&2
    exit 2
  fi
  log "$step"
  "step_$step"
done
log done
