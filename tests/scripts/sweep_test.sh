#!/usr/bin/env bash
# scripts/sweep.sh on the sample corpus: two candidates, two updates each; the table has a row per
# candidate with its own parameter count, and a second call reuses the scored runs.
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat > "$scratch/grid" <<'GRID'
# name  flags
base
narrow   --set model.d_model=32 --set model.heads=2 --set model.attention_dropout=0.1
GRID
run_sweep() {
  NMT=$nmt CONFIG=$source_dir/configs/quickstart.json STEPS=2 THREADS=1 DEVICE=cpu \
    EVAL_FLAGS="--strategy greedy --max-len 5" "$source_dir/scripts/sweep.sh" "$scratch/grid" "$scratch/out"
}
run_sweep > "$scratch/first.txt"
[[ $(wc -l < "$scratch/out/sweep.tsv") -eq 3 ]] || { echo "expected a header and 2 rows"; cat "$scratch/out/sweep.tsv"; exit 1; }
base_params=$(awk -F'\t' '$1 == "base" {print $3}' "$scratch/out/sweep.tsv")
narrow_params=$(awk -F'\t' '$1 == "narrow" {print $3}' "$scratch/out/sweep.tsv")
[[ "$narrow_params" -lt "$base_params" ]] || { echo "narrow ($narrow_params) not smaller than base ($base_params)"; exit 1; }
awk -F'\t' 'NR > 1 && $4 != 2 {print "steps " $4 " != 2"; exit 1}' "$scratch/out/sweep.tsv"
grep -q '| narrow | `--set model.d_model=32' "$scratch/out/sweep.md" || { cat "$scratch/out/sweep.md"; exit 1; }
touch -d '2000-01-01' "$scratch/out/base/checkpoint.pt"
run_sweep > "$scratch/second.txt"
[[ $(stat -c %Y "$scratch/out/base/checkpoint.pt") -eq $(date -d '2000-01-01' +%s) ]] || { echo "a scored run was trained again"; exit 1; }

# A time budget, held-out sets named from the first sweep's base run, and candidates side by side
# (one lane per core, up to 2): every candidate is scored on exactly the base run's sentences.
lanes=$(( $(nproc) < 2 ? 1 : 2 ))
NMT=$nmt CONFIG=$source_dir/configs/quickstart.json MAX_TIME=2s JOBS=$lanes THREADS=1 DEVICE=cpu \
  HELDOUT=$scratch/out/base EVAL_FLAGS="--strategy greedy --max-len 5" \
  "$source_dir/scripts/sweep.sh" "$scratch/grid" "$scratch/timed" > "$scratch/timed.txt"
[[ $(wc -l < "$scratch/timed/sweep.tsv") -eq 3 ]] || { echo "timed: expected 2 rows"; cat "$scratch/timed/sweep.tsv"; exit 1; }
for name in base narrow; do
  cmp "$scratch/out/base/valid.tsv" "$scratch/timed/$name/valid.tsv" || { echo "$name: another valid split"; exit 1; }
  cmp "$scratch/out/base/test.tsv" "$scratch/timed/$name/test.tsv" || { echo "$name: another test split"; exit 1; }
  grep -q '"max_time": "2s"' "$scratch/timed/$name/config.json" || { echo "$name: no time budget recorded"; exit 1; }
done
grep -q '2s of training each' "$scratch/timed/sweep.md" || { cat "$scratch/timed/sweep.md"; exit 1; }
echo "sweep_test: ok"
