#!/usr/bin/env bash
# The notebook itself (../shared/reference/seed_transformer.py, unchanged) trained for the same
# wall time as an nmt run, on that run's split, then scored like `nmt eval --notebook-form`.
#
#   scripts/notebook-same-time.sh runs/tatoeba-cpu        (the run's training time + ~10 minutes)
#
# The split comes from `nmt prepare --config configs/notebook-baseline.json` (the split settings of
# configs/tatoeba-en-es.json with the notebook's cleaning). The notebook script gets train + valid
# and, as the notebook does, keeps 10% of it for its own validation; the test split is translated
# with its greedy decoder and scored with `nmt score` against the notebook-cleaned references.
# The budget is the run's last train_seconds in metrics.jsonl (training only, validation included),
# counted by scripts/notebook_timed.py from the notebook's first training batch.
#
# Environment: REFERENCE (seed_transformer.py), PYTHON (a python with torch: Debian's python3-torch),
# THREADS (2), EPOCHS (upper bound on the notebook's epochs, 4: it makes about 2 in 83 minutes on 2 CPU
# threads; each epoch begun after the deadline costs one validation pass), OUT_DIR (runs/notebook-same-time).
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:?usage: scripts/notebook-same-time.sh RUN_DIR}
reference=${REFERENCE:-../shared/reference/seed_transformer.py}
python=${PYTHON:-/usr/bin/python3}
threads=${THREADS:-2}
epochs=${EPOCHS:-4}
out=${OUT_DIR:-runs/notebook-same-time}
nmt=build/src/nmt
[[ -x "$nmt" ]] || { echo "notebook-same-time: $nmt not found (build first: scripts/build.sh)" >&2; exit 1; }
[[ -f "$run/metrics.jsonl" ]] || { echo "notebook-same-time: $run/metrics.jsonl not found (train a run first)" >&2; exit 1; }
[[ -f "$reference" ]] || { echo "notebook-same-time: $reference not found (set REFERENCE)" >&2; exit 1; }
"$python" -c 'import torch' 2>/dev/null || { echo "notebook-same-time: $python has no torch (apt install python3-torch)" >&2; exit 1; }

budget=$("$python" -c '
import json, sys
seconds = [r["train_seconds"] for r in map(json.loads, open(sys.argv[1])) if r.get("event") == "epoch"]
if not seconds: sys.exit("notebook-same-time: no epoch record in " + sys.argv[1])
print(round(seconds[-1], 1))' "$run/metrics.jsonl")

mkdir -p "$out"
"$nmt" -q prepare --config configs/notebook-baseline.json --out "$out/split"
cat "$out/split/train.tsv" "$out/split/valid.tsv" > "$out/trainvalid.tsv"
cut -f1 "$out/split/test.tsv" > "$out/test.src"
cut -f2 "$out/split/test.tsv" > "$out/test.ref"

echo "== notebook script, $budget s of training (as $run), $threads threads, $(date -u +%FT%TZ)"
"$python" scripts/notebook_timed.py --budget "$budget" --reference "$reference" -- \
  --data "$out/trainvalid.tsv" --epochs "$epochs" --threads "$threads" \
  --save "$out/notebook.pt" --translate "$out/test.src" --out "$out/test.hyp" | tee "$out/run.jsonl"
grep -q '"phase": "budget"' "$out/run.jsonl" ||
  echo "notebook-same-time: the notebook ended its $epochs epochs before the budget was spent; raise EPOCHS" >&2
"$nmt" score --hyp "$out/test.hyp" --ref "$out/test.ref" --json | tee "$out/score.json"
