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
# them), THREADS (2), DEVICE (auto), NMT (build/src/nmt), EVAL_FLAGS (extra nmt eval flags, e.g.
# --strategy greedy for speed). Writes OUT_DIR/<name>/ (the runs), OUT_DIR/sweep.md and
# OUT_DIR/sweep.tsv (config, parameters, steps, wall time, hardware, valid loss, BLEU, chrF).
set -euo pipefail
cd "$(dirname "$0")/.."
grid=${1:?usage: scripts/sweep.sh GRID [OUT_DIR]}
out=${2:-runs/sweep}
config=${CONFIG:-configs/tatoeba-en-es.json}
steps=${STEPS:-0}
threads=${THREADS:-2}
device=${DEVICE:-auto}
nmt=${NMT:-build/src/nmt}
[[ -x "$nmt" ]] || { echo "sweep: $nmt not found; build first (scripts/test.sh or cmake)" >&2; exit 1; }
[[ -f "$grid" ]] || { echo "sweep: grid file $grid not found" >&2; exit 1; }
mkdir -p "$out"
hardware="$(nproc) CPU cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
if [[ "$device" == cuda* ]] || { [[ "$device" == auto ]] && command -v nvidia-smi > /dev/null; }; then
  hardware=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
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

printf 'candidate\tflags\tparameters\tsteps\ttrain_minutes\thardware\tvalid_loss\tvalid_bleu\tvalid_chrf\n' > "$out/sweep.tsv"
while read -r name flags; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  run="$out/$name"
  if ! grep -q '"event":"eval"' "$run/metrics.jsonl" 2> /dev/null; then
    rm -rf "$run"
    step_flag=(); [[ "$steps" != 0 ]] && step_flag=(--max-steps "$steps")
    # shellcheck disable=SC2086  # flags are words on purpose
    "$nmt" train --config "$config" --out "$run" --threads "$threads" --device "$device" \
      "${step_flag[@]}" $flags > "$out/$name.log" 2>&1 ||
      { echo "sweep: $name failed, see $out/$name.log" >&2; continue; }
    # shellcheck disable=SC2086
    "$nmt" -q eval --model "$run" --split valid --threads "$threads" --device "$device" \
      ${EVAL_FLAGS:-} --json > "$run/valid.json"
  fi
  IFS=$'\t' read -r params done_steps minutes loss bleu chrf < <(summarise "$run" "$out/$name.log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${flags:-(base)}" "$params" "$done_steps" \
    "$minutes" "$hardware" "$loss" "$bleu" "$chrf" >> "$out/sweep.tsv"
  echo "sweep: $name valid BLEU $bleu chrF $chrf loss $loss ($done_steps steps, $minutes min)"
done < "$grid"

python3 - "$out/sweep.tsv" "$config" "$steps" > "$out/sweep.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"Base `{sys.argv[2]}`, {'full runs' if sys.argv[3] == '0' else sys.argv[3] + ' updates each'}; "
      "scored on each run's valid split.\n")
print("| candidate | flags | parameters | steps | train min | hardware | valid loss | valid BLEU | valid chrF |")
print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
for r in sorted(rows, key=lambda r: -float(r["valid_bleu"])):
    print(f"| {r['candidate']} | `{r['flags']}` | {r['parameters']} | {r['steps']} | {r['train_minutes']} | "
          f"{r['hardware']} | {r['valid_loss']} | {r['valid_bleu']} | {r['valid_chrf']} |")
PY
cat "$out/sweep.md"
