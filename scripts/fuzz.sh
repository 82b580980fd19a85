#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer under AddressSanitizer + UBSan:
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]
#
# Builds the targets of tests/fuzz with clang into build-fuzz/ (NMT_FUZZ=ON), then runs each
# TARGET (default: all; aligned, checkpoint, checkpoint_entries, clean, config, eval,
# placeholders, pytorch_checkpoint, real_text, safetensors, serve_api, tsv, vocab) for SECONDS (default 10) on a scratch copy of its seeds tests/fuzz/corpus/<target>/,
# so the seeds stay as they are, with the dictionary tests/fuzz/<target>.dict where there is one.
# Prints one table row per target: executions, executions per second (over the
# whole run, start-up included), coverage (libFuzzer's cov: covered edges, ft: features), the
# corpus at the end (inputs/bytes) and the outcome. Exits non-zero after any finding (crash,
# sanitizer report, violated property, leak, timeout, out-of-memory); the input that caused it is
# in build-fuzz/fuzz-runs/<target>/findings/, libFuzzer's log in build-fuzz/fuzz-runs/<target>/
# fuzz.log. Reproduce one with build-fuzz/tests/fuzz/<target>_fuzz FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
targets=("${@:2}")
build=build-fuzz

generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DNMT_FUZZ=ON -DNMT_BUILD_TESTS=OFF
fi
cmake --build "$build" --parallel "$(nproc)" --target fuzz

if [[ ${#targets[@]} -eq 0 ]]; then
  for source in tests/fuzz/*_fuzz.cpp; do
    targets+=("$(basename "$source" _fuzz.cpp)")
  done
fi
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp}
# One thread for LibTorch and OpenMP: the loaders' results must not depend on timing.
export OMP_NUM_THREADS=1

echo "| target | seconds | executions | exec/s | cov | ft | corpus | outcome |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
failed=()
for target in "${targets[@]}"; do
  binary=$build/tests/fuzz/${target}_fuzz
  if [[ ! -x $binary ]]; then
    echo "fuzz.sh: no fuzz target $target (tests/fuzz/${target}_fuzz.cpp)" >&2
    exit 2
  fi
  run=$build/fuzz-runs/$target
  rm -rf "$run"
  # The targets' scratch files go to the run's tmp/ (TMPDIR), where a crashed run leaves them.
  mkdir -p "$run/corpus" "$run/findings" "$run/tmp"
  cp tests/fuzz/corpus/"$target"/* "$run/corpus/"
  # LibTorch's archive reader allocates whatever a damaged length field asks for (up to 4 GB) and
  # can spend tens of seconds on it. Those out-of-memory and timeout reports are LibTorch's, not
  # nmt's: the raw checkpoint target runs in fork mode, which counts them without stopping.
  # Crashes and sanitizer reports are saved and fail the run, but do not end it (LibTorch's
  # reader has crashes of its own, one of which would otherwise end a campaign in its first
  # minutes).
  # (Fork mode's exit status is that of its last job, a timeout's included, so the saved inputs'
  # names tell what happened: timeout-*, oom-*, crash-*, leak-*...)
  mode=()
  if [[ -f tests/fuzz/$target.dict ]]; then mode+=(-dict="tests/fuzz/$target.dict"); fi
  ignored='^$'
  if [[ $target == checkpoint ]]; then
    mode+=(-fork=1 -ignore_ooms=1 -ignore_timeouts=1 -ignore_crashes=1)
    ignored='^(timeout|oom)-'
  fi
  exit_status=0
  TMPDIR=$PWD/$run/tmp "$binary" "${mode[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$run/findings/" "$run/corpus" \
    > "$run/fuzz.log" 2>&1 || exit_status=$?
  if [[ $target == checkpoint ]]; then
    # ASan reports an allocation it cannot serve as a crash, not as an out-of-memory: where the
    # allocation is LibTorch's own (frame #1, its archive reader asking for what a damaged length
    # says), the finding is one of LibTorch's out-of-memory cases above and is renamed oom-*.
    for finding in "$run"/findings/crash-*; do
      [[ -e $finding ]] || continue
      report=$("$binary" "$finding" 2>&1 || true)
      if grep -A2 "AddressSanitizer: allocator is out of memory" <<< "$report" |
         grep -q "#1 .*libtorch"; then
        mv "$finding" "$run/findings/oom-${finding##*/crash-}"
      fi
    done
  fi
  saved=$(ls "$run/findings" | tr '\n' ' ')
  findings=$(ls "$run/findings" | grep -Ev "$ignored" | tr '\n' ' ' || true)
  outcome=ok
  if [[ -n $findings || ($exit_status -ne 0 && -z $saved) ]]; then
    outcome="FINDING: ${findings:-exit status $exit_status} (log: $run/fuzz.log)"
    failed+=("$target")
  elif [[ -n $saved ]]; then
    outcome="ok; LibTorch's slow or huge reads: $saved"
  fi
  # libFuzzer's last status line: "#6917<TAB>DONE cov: 265 ft: 836 corp: 108/12045b ..." (fork
  # mode: "#129: cov: 900 ft: 900 corp: 1 ...").
  status=$(grep -E '^#[0-9]+:?[[:space:]].*cov: ' "$run/fuzz.log" | tail -n 1 || true)
  field() { sed -nE "s/.* $1: ([0-9]+).*/\1/p" <<< "$status"; }
  executions=$(sed -nE 's/^#([0-9]+).*/\1/p' <<< "$status")
  corpus="$(ls "$run/corpus" | wc -l)/$(cat "$run"/corpus/* | wc -c)b"
  per_second=$((${executions:-0} / seconds))
  echo "| $target | $seconds | ${executions:-?} | $per_second | $(field cov) | $(field ft) |" \
    "$corpus | $outcome |"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: findings in ${failed[*]}" >&2
  exit 1
fi
