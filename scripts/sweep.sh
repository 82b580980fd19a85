#!/usr/bin/env bash
# Trains a grid of configuration variants and scores each on its run's VALID split (never the
# test split), writing one table. Re-runnable: a candidate whose run already has an eval record is
# not trained again.
#
#   scripts/sweep.sh GRID [OUT_DIR]
#
# GRID has one candidate per line: a name, then nmt train flags (usually --set section.key=value);
# blank lines and lines starting with # are skipped, e.g.
#
#   baseline
#   dropout-0.3      --set model.dropout=0.3 --set model.attention_dropout=0.1
#   d512-l3          --set model.d_model=512 --set model.layers=3 --set model.heads=8
#
# Environment: CONFIG (base configuration, configs/tatoeba-en-es.json), STEPS (updates per
# candidate, 0 = the configuration's epochs; shortened runs rank candidates, full runs confirm
# them), MAX_TIME (a training-time budget per candidate, e.g. 25m: every candidate trains until
# it is spent, the fair ranking on one machine), HELDOUT (a trained run whose valid.tsv and
# test.tsv every candidate names as data.valid and data.test, so candidates that change the length
# filter or the split are scored on the same sentences), JOBS (candidates trained side by side, 1;
# with JOBS=N the grid is dealt round-robin to N lanes, lane k pinned to CPU core k with taskset),
# THREADS (per candidate, 2; with JOBS>1 use 1), DEVICE (auto), NMT (build/src/nmt), EVAL_FLAGS
# (extra nmt eval flags, e.g. --strategy greedy for speed). Writes OUT_DIR/<name>/ (the runs),
# OUT_DIR/<name>.log, OUT_DIR/sweep.md and OUT_DIR/sweep.tsv (config, parameters, steps, training
# minutes, hardware, valid loss, BLEU, chrF).
set -euo pipefail
cd "$(dirname "$0")/.."
grid=${1:?usage: scripts/sweep.sh GRID [OUT_DIR]}
out=${2:-runs/sweep}
config=${CONFIG:-configs/tatoeba-en-es.json}
steps=${STEPS:-0}
threads=${THREADS:-2}
max_time=${MAX_TIME:-0}
jobs=${JOBS:-1}
heldout=${HELDOUT:-}
device=${DEVICE:-auto}
nmt=${NMT:-build/src/nmt}
[[ -x "$nmt" ]] || { echo "sweep: $nmt not found; build first (scripts/test.sh or cmake)" >&2; exit 1; }
[[ -f "$grid" ]] || { echo "sweep: grid file $grid not found" >&2; exit 1; }
[[ "$jobs" =~ ^[1-9][0-9]*$ && "$jobs" -le $(nproc) ]] ||
  { echo "sweep: JOBS=$jobs must be between 1 and the $(nproc) cores" >&2; exit 1; }
heldout_flags=()
if [[ -n "$heldout" ]]; then
  for split in valid test; do
    [[ -f "$heldout/$split.tsv" ]] || { echo "sweep: HELDOUT run $heldout has no $split.tsv" >&2; exit 1; }
  done
  heldout=$(cd "$heldout" && pwd)
  heldout_flags=(--set "data.valid=$heldout/valid.tsv" --set "data.test=$heldout/test.tsv")
fi
mkdir -p "$out"
hardware="$(nproc) CPU cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
if [[ "$device" == cuda* ]] || { [[ "$device" == auto ]] && command -v nvidia-smi > /dev/null; }; then
  hardware=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
elif [[ "$jobs" -gt 1 ]]; then
  hardware="$hardware, one core per candidate, $jobs side by side"
fi

summarise() {  # run directory, train log -> one TSV row
  python3 - "$1" "$2" <<'PY'
import json, re, sys
run, log = sys.argv[1], sys.argv[2]
records = [json.loads(line) for line in open(f"{run}/metrics.jsonl") if line.strip()]
last = lambda event: next((r for r in reversed(records) if r.get("event") == event), {})
params = re.search(r"model: (\d+) parameters", open(log).read())
train = last("train"); end = last("end"); evaluation = last("eval")
seconds = end.get("train_seconds", train.get("train_seconds", 0.0))
steps = end.get("step", train.get("step", 0))
print("\t".join([params.group(1) if params else "?", str(steps), f"{seconds / 60:.1f}",
                 f"{evaluation['loss']:.4f}", f"{evaluation['bleu']:.2f}", f"{evaluation['chrf']:.2f}"]))
PY
}

candidates() {  # the grid's candidate lines: name, then flags
  while read -r name flags; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    printf '%s %s\n' "$name" "$flags"
  done < "$grid"
}

train_candidate() {  # name, flags, CPU core or "" -> OUT_DIR/<name>/ with valid.json
  local name=$1 flags=$2 core=$3 run="$out/$1" pin=()
  grep -q '"event":"eval"' "$run/metrics.jsonl" 2> /dev/null && return 0
  rm -rf "$run"
  [[ -n "$core" ]] && pin=(taskset -c "$core")
  local limits=()
  [[ "$steps" != 0 ]] && limits+=(--max-steps "$steps")
  # With a time budget the budget is what stops a candidate, not the configuration's epochs.
  [[ "$max_time" != 0 ]] && limits+=(--max-time "$max_time" --epochs 1000)
  # shellcheck disable=SC2086  # flags are words on purpose
  "${pin[@]}" "$nmt" train --config "$config" --out "$run" --threads "$threads" --device "$device" \
    "${limits[@]}" "${heldout_flags[@]}" $flags < /dev/null > "$out/$name.log" 2>&1 ||
    { echo "sweep: $name failed, see $out/$name.log" >&2; return 0; }
  # shellcheck disable=SC2086
  "${pin[@]}" "$nmt" -q eval --model "$run" --split valid --threads "$threads" --device "$device" \
    ${EVAL_FLAGS:-} --json < /dev/null > "$run/valid.json"
  echo "sweep: $name trained and scored"
}

if [[ "$jobs" -eq 1 ]]; then
  while read -r name flags; do train_candidate "$name" "$flags" ""; done < <(candidates)
else
  for ((lane = 0; lane < jobs; lane++)); do
    candidates | awk -v lane="$lane" -v jobs="$jobs" '(NR - 1) % jobs == lane' |
      while read -r name flags; do train_candidate "$name" "$flags" "$lane"; done &
  done
  wait
fi

printf 'candidate\tflags\tparameters\tsteps\ttrain_minutes\thardware\tvalid_loss\tvalid_bleu\tvalid_chrf\n' > "$out/sweep.tsv"
while read -r name flags; do
  grep -q '"event":"eval"' "$out/$name/metrics.jsonl" 2> /dev/null || continue
  IFS=$'\t' read -r params done_steps minutes loss bleu chrf < <(summarise "$out/$name" "$out/$name.log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${flags:-(base)}" "$params" "$done_steps" \
    "$minutes" "$hardware" "$loss" "$bleu" "$chrf" >> "$out/sweep.tsv"
  echo "sweep: $name valid BLEU $bleu chrF $chrf loss $loss ($done_steps steps, $minutes min)"
done < <(candidates)

python3 - "$out/sweep.tsv" "$config" "$steps" "$max_time" > "$out/sweep.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
budget = sys.argv[4] if sys.argv[4] != "0" else None
length = (f"{budget} of training each" if budget else
          "full runs" if sys.argv[3] == "0" else sys.argv[3] + " updates each")
print(f"Base `{sys.argv[2]}`, {length}; scored on each run's valid split.\n")
print("| candidate | flags | parameters | steps | train min | hardware | valid loss | valid BLEU | valid chrF |")
print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
for r in sorted(rows, key=lambda r: -float(r["valid_bleu"])):
    print(f"| {r['candidate']} | `{r['flags']}` | {r['parameters']} | {r['steps']} | {r['train_minutes']} | "
          f"{r['hardware']} | {r['valid_loss']} | {r['valid_bleu']} | {r['valid_chrf']} |")
PY
cat "$out/sweep.md"
