#!/usr/bin/env bash
# scripts/profile-ops.py: self times per operator and phase from hand-written traces (golden values,
# one trace and two side by side), refusals that name the file, then a real trace of
# `nmt bench train --profile` on the sample corpus, which has operators inside and outside backward.
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ops=("${PYTHON:-python3}" "$source_dir/scripts/profile-ops.py")

# linear (100 ms) calls addmm (60); MmBackward0 (50) calls mm (30); a lone mm (10); another thread's
# mm (40) overlapping the first thread's events is not their child. Two steps.
trace() {
  cat <<JSON
[{"ph": "X", "name": "aten::linear", "ts": 0, "dur": 100000, "tid": 1},
 {"ph": "X", "name": "aten::addmm", "ts": 10000, "dur": $1, "tid": 1},
 {"ph": "X", "name": "MmBackward0", "ts": 200000, "dur": 50000, "tid": 1},
 {"ph": "X", "name": "aten::mm", "ts": 205000, "dur": 30000, "tid": 1},
 {"ph": "X", "name": "aten::mm", "ts": 300000, "dur": 10000, "tid": 1},
 {"ph": "X", "name": "aten::mm", "ts": 20000, "dur": 40000, "tid": 2},
 {"ph": "i", "name": "a mark", "ts": 5, "tid": 1}]
JSON
}
trace 60000 > "$scratch/a.json"
trace 90000 > "$scratch/b.json"
"${ops[@]}" "$scratch/a.json" --steps 2 > "$scratch/one.md" || fail "a good trace was refused"
for row in '| backward | aten::mm | 0.5 | 15.00 |' '| backward | MmBackward0 | 0.5 | 10.00 |' \
  '| backward | all | | 25.00 |' '| outside | aten::mm | 1 | 25.00 |' \
  '| outside | aten::linear | 0.5 | 20.00 |' '| outside | aten::addmm | 0.5 | 30.00 |' \
  '| outside | all | | 75.00 |'; do
  grep -qF -- "$row" "$scratch/one.md" || fail "row $row missing from: $(cat "$scratch/one.md")"
done
"${ops[@]}" "$scratch/a.json" "$scratch/b.json" --steps 2 > "$scratch/two.md" || fail "two traces were refused"
for row in '| outside | aten::addmm | 0.5 | 30.00 | 45.00 | +15.00 |' \
  '| outside | aten::linear | 0.5 | 20.00 | 5.00 | -15.00 |' '| outside | all | | 75.00 | 75.00 | +0.00 |' \
  '| backward | all | | 25.00 | 25.00 | +0.00 |'; do
  grep -qF -- "$row" "$scratch/two.md" || fail "row $row missing from: $(cat "$scratch/two.md")"
done
gzip -c "$scratch/b.json" > "$scratch/b.json.gz"
"${ops[@]}" "$scratch/a.json" "$scratch/b.json.gz" --steps 2 | sed 1d > "$scratch/two-gz.md" ||
  fail "a gzip'd trace was refused"
diff <(sed 1d "$scratch/two.md") "$scratch/two-gz.md" > /dev/null ||
  fail "the gzip'd trace reads differently: $(cat "$scratch/two-gz.md")"
cp "$scratch/a.json" "$scratch/plain.json.gz"
if "${ops[@]}" "$scratch/plain.json.gz" 2> "$scratch/err"; then fail "a .gz that is not gzip was accepted"; fi
grep -qF "profile-ops: $scratch/plain.json.gz: " "$scratch/err" || fail "not-gzip message: $(cat "$scratch/err")"

echo '[{"ph": "X", "name": "x"' > "$scratch/cut.json"
if "${ops[@]}" "$scratch/cut.json" 2> "$scratch/err"; then fail "a cut trace was accepted"; else status=$?; fi
[[ $status == 2 ]] || fail "exit status $status for a cut trace"
grep -qF "profile-ops: $scratch/cut.json: " "$scratch/err" || fail "cut trace message: $(cat "$scratch/err")"
echo '[{"ph": "X", "name": "x", "ts": 1}]' > "$scratch/nodur.json"
if "${ops[@]}" "$scratch/nodur.json" 2> "$scratch/err"; then fail "an event without dur was accepted"; fi
grep -qF "profile-ops: $scratch/nodur.json: event 0 lacks a name, ts or dur" "$scratch/err" ||
  fail "missing dur message: $(cat "$scratch/err")"

"$nmt" -q bench train --config "$source_dir/configs/quickstart.json" \
  --data "$source_dir/data/sample/en-es.tsv" --steps 2 --warmup 1 \
  --threads 1 --profile "$scratch/real.json" --json > "$scratch/bench.json" || fail "bench train --profile failed"
grep -qF '"profiled_steps":2' "$scratch/bench.json" || fail "profiled_steps: $(cat "$scratch/bench.json")"
"${ops[@]}" "$scratch/real.json" --steps 2 > "$scratch/real.md" || fail "the real trace was refused"
grep -q '^| backward | aten::' "$scratch/real.md" || fail "no operator inside backward: $(cat "$scratch/real.md")"
grep -q '^| outside | aten::' "$scratch/real.md" || fail "no operator outside backward: $(cat "$scratch/real.md")"
echo "profile-ops: ok"
