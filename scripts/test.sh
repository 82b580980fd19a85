#!/usr/bin/env bash
# The test command (CI runs it through .ci/run). Installs what is missing, builds nmt against
# Debian's LibTorch 1.13 into build/ with compiler warnings as errors, and runs the whole GoogleTest
# suite with ctest. Tests that need ../shared data carry the label `slow`, browser tests `browser`;
# both skip themselves, reported as skipped, when their data or Chromium is absent.
#
# Without arguments (the whole suite, as CI runs it) it goes on to
#   - the same suite at the AVX2 tier (NMT_CPU_ISA=avx2: nmt's AVX2 int8 kernel, its defaults and
#     the libraries' kernels as on a CPU without AVX-512), where the CPU has AVX2 and more (where
#     AVX2 is its own tier the suite above ran there), without the
#     labels whose code chooses no kernel by tier (docs, eval, text, viz, import_formats) and
#     the round trips against peer libraries (peers),
#   - the Torch-free suites under AddressSanitizer + UBSan (scripts/sanitize.sh, build-asan/),
#   - a few seconds of each libFuzzer target (scripts/fuzz.sh 5, build-fuzz/),
#   - the whole suite again against LibTorch 2.x, the CUDA + NCCL build of PyPI's torch wheel
#     (scripts/test-torch2.sh, build-torch2/; NMT_TORCH2=0 leaves it out, and so does a run that
#     reaches it after NMT_TORCH2_AFTER_MINUTES, 45, so that a slow machine stays within CI's
#     90 minutes),
# and ends with a summary: each suite's test counts, every skipped test with its reason, the time
# of each stage. With arguments only the 1.13 suite runs and they go to its ctest (e.g. -LE slow,
# -L decode, -R Beam); run one test of a module that loads LibTorch with
# build/tests/<module>_tests --gtest_filter=Suite.Name.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
summary=()
failed=0

# Seconds since $1 as "4 min 07 s".
elapsed() {
  local seconds=$((SECONDS - $1))
  printf '%d min %02d s' $((seconds / 60)) $((seconds % 60))
}

# gtest-level counts of a ctest run (its outputs are in Testing/Temporary/LastTest.log): passed,
# skipped and failed tests, then one line per skipped test with the reason it gave.
gtest_counts() {
  awk '
    /^\[  PASSED  \] [0-9]+ test/  { passed += $4 }
    /^\[  SKIPPED \] [0-9]+ test/  { skipped += $4 }
    /^\[  FAILED  \] [0-9]+ test/  { failed += $4 }
    /: Skipped$/ { getline reason; pending = reason }
    /^\[  SKIPPED \] [A-Za-z_]+\.[A-Za-z_0-9\/]+ \(/ { reasons[$4] = pending }
    END {
      printf "%d tests passed, %d skipped, %d failed\n", passed, skipped, failed
      fflush()
      for (name in reasons) printf "    skipped: %s (%s)\n", name, reasons[name] | "sort"
      close("sort")
    }' "$1/Testing/Temporary/LastTest.log"
}

# run_suite NAME BUILD_DIR COMMAND...: runs a ctest command, records its counts for the summary.
run_suite() {
  local name=$1 build=$2 stage_start=$SECONDS status=0
  shift 2
  "$@" || status=$?
  summary+=("$name ($(elapsed "$stage_start")): $(gtest_counts "$build" | head -1)")
  while IFS= read -r line; do summary+=("$line"); done < <(gtest_counts "$build" | tail -n +2)
  if [[ $status -ne 0 ]]; then
    summary+=("    FAILED (exit $status)")
    failed=1
  fi
}

scripts/install-deps.sh
# The transformers tests borrow the LibTorch 2.x venv's torch (.venv/hf, setup-venv.sh): make it
# before the first suite, so that they run in every suite and not only in the 2.x one.
if [[ $# -eq 0 && ${NMT_TORCH2:-1} == 1 ]]; then
  stage=$SECONDS
  if scripts/test-torch2.sh --venv-only; then
    summary+=("torch venv of LibTorch 2.x (PyPI wheel), borrowed by .venv/hf: $(elapsed "$stage")")
  else
    summary+=("torch venv of LibTorch 2.x: FAILED ($(elapsed "$stage"))")
    failed=1
  fi
fi
stage=$SECONDS
scripts/build.sh -DNMT_WERROR=ON
summary+=("build, LibTorch 1.13 (Debian), warnings as errors: $(elapsed "$stage")")
run_suite "suite, $(build/src/nmt --version | sed -n 2p) (Debian)" build \
  ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"

if [[ $# -eq 0 ]]; then
  if ! grep -qwE 'avx512f|avx_vnni' /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
    # The CPU's own tier: the suite above ran at it (on a Zen 3 the repeat cost 8 minutes of CI).
    summary+=("suite at the AVX2 tier: skipped (AVX2 is this CPU's own tier: the suite above ran at it)")
  elif grep -qw avx2 /proc/cpuinfo; then
    # Without the labels whose code has no kernel that the tier chooses (scores, tokenizers,
    # pictures, file formats, the documentation's checks): the same results at every tier, and
    # minutes of CI. Without the round trips against peer libraries (peers) too: they check
    # formats and fp32 agreement, through kernels the model, decode and train tests already run
    # at this tier, and cost about 5 minutes.
    run_suite "suite at the AVX2 tier (NMT_CPU_ISA=avx2)" build \
      env NMT_CPU_ISA=avx2 ctest --test-dir build --output-on-failure --parallel "$(nproc)" \
      -LE '^(docs|eval|text|viz|import_formats|peers)$'
  else
    summary+=("suite at the AVX2 tier: skipped (this CPU has no AVX2)")
  fi
  stage=$SECONDS
  if scripts/sanitize.sh; then
    summary+=("Torch-free suites under ASan + UBSan: passed ($(elapsed "$stage"))")
  else
    summary+=("Torch-free suites under ASan + UBSan: FAILED ($(elapsed "$stage"))")
    failed=1
  fi
  stage=$SECONDS
  if scripts/fuzz.sh 5; then
    summary+=("fuzz targets, 5 s each: no finding ($(elapsed "$stage"))")
  else
    summary+=("fuzz targets, 5 s each: FINDING ($(elapsed "$stage"))")
    failed=1
  fi
  # CI stops at 90 minutes: where the stages above took most of them (a Zen 3 with 2 cores
  # reached this point after about 66 minutes, and the 2.x build and suite take about 36 more
  # there), the 2.x stage is left out, and says so, rather than have the whole run killed.
  torch2_after=$((${NMT_TORCH2_AFTER_MINUTES:-45} * 60))
  if [[ ${NMT_TORCH2:-1} == 1 ]] && (( SECONDS - started > torch2_after )); then
    summary+=("suite, LibTorch 2.x: skipped ($(elapsed "$started") had passed, more than NMT_TORCH2_AFTER_MINUTES=${NMT_TORCH2_AFTER_MINUTES:-45}: run scripts/test-torch2.sh on its own)")
  elif [[ ${NMT_TORCH2:-1} == 1 ]]; then
    stage=$SECONDS
    if NMT_TORCH2_BUILD=build-torch2 scripts/test-torch2.sh --build-only; then
      summary+=("build, LibTorch 2.x CUDA + NCCL variant (PyPI wheel), linked: $(elapsed "$stage")")
      summary+=("    $(build-torch2/src/nmt --version | tr '\n' ' ' | sed 's/  */ /g')")
      # The wheel's OpenMP threads spin while they wait; with two test processes on two cores
      # that stalls every small operation (a test of a tiny model: 9 s instead of 1.5 s).
      run_suite "suite, $(build-torch2/src/nmt --version | sed -n 2p) (PyPI wheel, on the CPU)" build-torch2 \
        env OMP_WAIT_POLICY=passive ctest --test-dir build-torch2 --output-on-failure --parallel "$(nproc)"
    else
      summary+=("build, LibTorch 2.x CUDA + NCCL variant: FAILED ($(elapsed "$stage"))")
      failed=1
    fi
  else
    summary+=("suite, LibTorch 2.x: skipped (NMT_TORCH2=0)")
  fi
fi

echo
echo "== test summary =="
printf '%s\n' "${summary[@]}"
echo "total: $(elapsed "$started")"
exit "$failed"
