#!/usr/bin/env bash
# One nmt benchmark under several environments, alternating: ROUNDS rounds, each setting once per
# round, the order given rotated by one each round (so that no setting always runs first or
# last: position alone moved figures by 3-4% on a shared 2-core VM), and a table of each setting's
# throughput per round with its median and its ratio to the first setting. For what the
# environment chooses and the process cannot change once loaded: OpenBLAS's kernels
# (OPENBLAS_CORETYPE), the tier (NMT_CPU_ISA).
#
#   scripts/bench-envs.sh OUT_DIR SETTING...
#   SETTING: "name=VAR=value ... [--flag ...]": the environment's space-separated assignments
#            (none for the default), then from the first word that starts with -- flags of this
#            setting's benchmark after BENCH_FLAGS (so that settings can differ in --precision)
#
#   BENCH_FLAGS="--steps 40 --warmup 5 --threads 2 --precision fp32" \
#   scripts/bench-envs.sh data/benchmarks/blas-cores-DATE "nmt's choice=" \
#     "Prescott=OPENBLAS_CORETYPE=Prescott" "Haswell=OPENBLAS_CORETYPE=Haswell" \
#     "avx2 tier=NMT_CPU_ISA=avx2"
#
# Environment: NMT (build/src/nmt), BENCH (train or translate; train), ROUNDS (3), CONFIG
# (training's configuration, configs/tatoeba-en-es.json), BENCH_FLAGS (training's default:
# --steps 40 --warmup 5 --threads 2; translation's: none, so name the run with
# --model). Writes OUT_DIR: command.txt, machine.txt (date, commit, CPU model and ISA flags, each
# setting's `nmt --version`, load before), each run's JSON (<setting number>-<round>.json) and
# results.md (throughput; for training the GEMM peak and the peak resident memory each run
# measured). Figures mean something only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scripts/bench-envs.sh OUT_DIR "name=VAR=value ..." ...'
out=${1:?$usage}
shift
[[ $# -ge 2 ]] || { echo "$usage (two settings at least)" >&2; exit 2; }
nmt=${NMT:-build/src/nmt}
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
  *) echo "bench-envs: BENCH is train or translate, not '$bench'" >&2; exit 2 ;;
esac
names=() assignments=() setting_flags=()
for setting in "$@"; do
  [[ $setting == *=* ]] || { echo "bench-envs: '$setting' is not name=ASSIGNMENTS" >&2; exit 2; }
  names+=("${setting%%=*}")
  words=${setting#*=}
  if [[ " $words" == *" --"* ]]; then
    before=${words%%--*}
    assignments+=("$before") setting_flags+=("${words#"$before"}")
  else
    assignments+=("$words") setting_flags+=("")
  fi
done
mkdir -p "$out"
echo "NMT=$nmt BENCH=$bench ROUNDS=$rounds CONFIG=$config BENCH_FLAGS='${flags[*]}'" \
  "scripts/bench-envs.sh $out$(printf ' %q' "$@")" > "$out/command.txt"
{
  scripts/machine-header.sh
  for i in "${!names[@]}"; do
    echo "setting $((i + 1)), ${names[$i]}: env ${assignments[$i]} ... ${setting_flags[$i]}"
    # shellcheck disable=SC2086  # the assignments are words by design
    env ${assignments[$i]} "$nmt" --version | sed 's/^/    /'
  done
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"
for round in $(seq "$rounds"); do
  for position in "${!names[@]}"; do
    i=$(( (position + round - 1) % ${#names[@]} ))
    echo "bench-envs: round $round, ${names[$i]} (env ${assignments[$i]} ${setting_flags[$i]})" >&2
    # shellcheck disable=SC2086
    env ${assignments[$i]} "$nmt" -q "${command[@]}" "${flags[@]}" ${setting_flags[$i]} --json \
      > "$out/$((i + 1))-$round.json"
  done
done
python3 - "$out" "$rounds" "$metric" "$unit" "${names[@]}" > "$out/results.md" <<'PY'
import json, statistics, sys
out, rounds, metric, unit, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
runs = [[json.load(open(f"{out}/{i + 1}-{r}.json")) for r in range(1, rounds + 1)]
        for i in range(len(names))]
medians = [statistics.median(run[metric] for run in setting) for setting in runs]
print(f"| setting | {' | '.join(f'round {r}' for r in range(1, rounds + 1))} | median {unit} "
      f"| / {names[0]} |")
print("|---|" + "---:|" * (rounds + 2))
for name, setting, median in zip(names, runs, medians):
    rounds_text = " | ".join(f"{run[metric]:,.1f}" for run in setting)
    print(f"| {name} | {rounds_text} | {median:,.1f} | {median / medians[0]:.3f} |")
print("\nRound 1 ran the settings in the order above; each later round starts one setting further.")
for key, title, form in (("gemm_peak_gflops", "GEMM peak (GFLOP/s)", "{:.1f}"),
                         ("peak_rss_mib", "Peak resident memory (MiB)", "{:,.0f}")):
    if key in runs[0][0]:
        print(f"\n{title} each run measured:\n")
        for name, setting in zip(names, runs):
            print(f"- {name}: " + ", ".join(form.format(run[key]) for run in setting))
PY
cat "$out/results.md"
echo "bench-envs: record in $out" >&2
