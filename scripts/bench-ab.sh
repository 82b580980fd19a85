#!/usr/bin/env bash
# Two builds of nmt under `nmt bench train` or `nmt bench translate`, alternating: ROUNDS rounds,
# the baseline first in odd rounds and the candidate first in even ones (running second cost 3-4%
# on a shared 2-core VM, record decoding-threads-2026-12-02-xeon-207), and a table of each build's throughput per round (target
# tokens/s for training, sentences/s for translation), their means and the ratio candidate /
# baseline. For a change that should not change the speed (or should): build the baseline from the
# earlier commit first. With CANDIDATE_FLAGS, one build against itself under two settings, e.g. the
# scaling of training from 1 thread to 2:
#
#   scripts/bench-ab.sh BASELINE_NMT CANDIDATE_NMT [OUT_DIR]
#   BENCH_FLAGS="--steps 20 --warmup 5 --threads 1" CANDIDATE_FLAGS="--steps 20 --warmup 5 \
#     --threads 2" scripts/bench-ab.sh build/src/nmt build/src/nmt OUT_DIR
#   BENCH=translate BENCH_FLAGS="--model runs/latest --strategy beam --n 2000" \
#     scripts/bench-ab.sh /tmp/before/nmt build/src/nmt OUT_DIR
#
# A build's nmt is a launcher that starts nmt-torch beside it: keep a baseline build with both
# (mkdir /tmp/before && cp build/src/nmt build/src/nmt-torch /tmp/before/).
#
# Environment: BENCH (train or translate; train), ROUNDS (3), CONFIG (training's configuration,
# configs/tatoeba-en-es.json), BENCH_FLAGS (training's default: --steps 40 --warmup 5 --threads 2;
# translation's: none, so name the run with --model), CANDIDATE_FLAGS (the candidate's,
# BENCH_FLAGS when unset), NMT_CPU_ISA (passed on: the tier both builds run at). Writes OUT_DIR
# (default data/benchmarks/<BENCH>-ab-<UTC date>/): command.txt, machine.txt (date, CPU model and
# ISA flags, tier, commit, both builds, load before), each run's JSON (baseline-1.json,
# candidate-1.json, ...) and results.md. Figures mean something only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/bench-ab.sh BASELINE_NMT CANDIDATE_NMT [OUT_DIR]"
baseline=${1:?$usage}
candidate=${2:?$usage}
bench=${BENCH:-train}
rounds=${ROUNDS:-3}
config=${CONFIG:-configs/tatoeba-en-es.json}
case $bench in
  train)
    command=(bench train --config "$config") metric=tgt_tokens_per_s unit="tgt tokens/s"
    read -r -a flags <<< "${BENCH_FLAGS:---steps 40 --warmup 5 --threads 2}" ;;
  translate)
    command=(bench translate) metric=sentences_per_s unit="sentences/s"
    read -r -a flags <<< "${BENCH_FLAGS:-}" ;;
  *) echo "bench-ab: BENCH is train or translate, not '$bench'" >&2; exit 2 ;;
esac
out=${3:-data/benchmarks/$bench-ab-$(date -u +%Y-%m-%d)}
read -r -a candidate_flags <<< "${CANDIDATE_FLAGS:-${flags[*]}}"
for binary in "$baseline" "$candidate"; do
  [[ -x "$binary" ]] || { echo "bench-ab: $binary is not an executable" >&2; exit 2; }
done
mkdir -p "$out"
# CONFIG only where it is read: translation names its run in BENCH_FLAGS.
config_setting=""
if [[ $bench == train ]]; then config_setting=" CONFIG=$config"; fi
echo "scripts/bench-ab.sh $*  (BENCH=$bench ROUNDS=$rounds$config_setting BENCH_FLAGS=${flags[*]}" \
  "CANDIDATE_FLAGS=${candidate_flags[*]} NMT_CPU_ISA=${NMT_CPU_ISA:-})" > "$out/command.txt"
{
  scripts/machine-header.sh
  for side in baseline candidate; do
    binary=$baseline
    [[ $side == candidate ]] && binary=$candidate
    echo "$side: $binary, sha256 $(sha256sum "$binary" | cut -c1-16)"
    "$binary" --version | sed 's/^/    /'
  done
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"
for round in $(seq "$rounds"); do
  order=(baseline candidate)
  (( round % 2 == 0 )) && order=(candidate baseline)
  for side in "${order[@]}"; do
    binary=$baseline side_flags=("${flags[@]}")
    [[ $side == candidate ]] && binary=$candidate side_flags=("${candidate_flags[@]}")
    echo "bench-ab: round $round, $side ($binary ${side_flags[*]})" >&2
    "$binary" -q "${command[@]}" "${side_flags[@]}" --json > "$out/$side-$round.json"
  done
done
python3 - "$out" "$rounds" "$metric" "$unit" > "$out/results.md" <<'PY'
import json, statistics, sys
out, rounds, metric, unit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
speeds = {side: [json.load(open(f"{out}/{side}-{r}.json"))[metric]
                 for r in range(1, rounds + 1)] for side in ("baseline", "candidate")}
print(f"| round | baseline {unit} | candidate {unit} |")
print("|---:|---:|---:|")
for r in range(rounds):
    print(f"| {r + 1} | {speeds['baseline'][r]:.1f} | {speeds['candidate'][r]:.1f} |")
means = {side: statistics.mean(values) for side, values in speeds.items()}
print(f"| mean | {means['baseline']:.1f} | {means['candidate']:.1f} |")
print()
print("The baseline ran first in odd rounds, the candidate in even ones.")
print()
print(f"candidate / baseline: {means['candidate'] / means['baseline']:.3f}; each side's spread "
      f"(max - min) / mean: baseline {(max(speeds['baseline']) - min(speeds['baseline'])) / means['baseline']:.3f}, "
      f"candidate {(max(speeds['candidate']) - min(speeds['candidate'])) / means['candidate']:.3f}")
PY
cat "$out/results.md"
echo "bench-ab: record in $out" >&2
