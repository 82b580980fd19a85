#!/usr/bin/env bash
# Text as people type it, run by run (docs/real-text.md#capitals-and-lower-case): each run's test
# split (its data.test, e.g. one cut by scripts/cut-test-set.sh with LONG= long sentences) scored
# whole and by source length, and the same sources sent in CAPITALS and in lower case, with
# nmt's sentence case (the default) and without it (--no-sentence-case).
#
#   scripts/bench-robust-text.sh OUT_DIR RUN [RUN...]
#
# Whole and by length: `nmt eval --json` (sacreBLEU's BLEU and chrF, cased, on the run's test
# split). Casing: `nmt translate` on the split's sources as written, upper-cased and lower-cased
# (Python's str.upper/str.lower), scored with `nmt score` after lower-casing hypotheses and
# references (sacreBLEU's -lc), so that a translation in capitals is not counted wrong for its
# case. Decoding: the runs' own decode sections unless DECODE_FLAGS says otherwise.
#
# Environment: NMT (build/src/nmt), DECODE_FLAGS (""). Writes OUT_DIR: command.txt, machine.txt
# (date, CPU model and ISA flags, tier, commit), per run <label>/ with eval.json, the inputs,
# hypotheses and scores.json; results.md with one row per run. The label of a run is its
# directory's name.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/bench-robust-text.sh OUT_DIR RUN [RUN...]" >&2
  exit 2
fi
out=$1
shift
nmt=${NMT:-build/src/nmt}
read -r -a decode <<< "${DECODE_FLAGS:-}"
for run in "$@"; do
  [[ -f $run/test.tsv ]] || { echo "bench-robust-text: $run/test.tsv does not exist" >&2; exit 2; }
done
mkdir -p "$out"
echo "scripts/bench-robust-text.sh $out $*  (NMT=$nmt DECODE_FLAGS=${decode[*]:-})" > "$out/command.txt"
{
  scripts/machine-header.sh
  "$nmt" --version | sed 's/^/    /'
} > "$out/machine.txt"

lowercase() { python3 -c 'import sys; sys.stdout.write(sys.stdin.read().lower())'; }

for run in "$@"; do
  label=$(basename "$run")
  dir=$out/$label
  mkdir -p "$dir"
  "$nmt" eval -m "$run" --json ${decode[@]+"${decode[@]}"} > "$dir/eval.json"
  cut -f1 "$run/test.tsv" > "$dir/written.src"
  cut -f2 "$run/test.tsv" | lowercase > "$dir/reference.lc"
  python3 -c 'import sys; sys.stdout.write(sys.stdin.read().upper())' < "$dir/written.src" > "$dir/upper.src"
  lowercase < "$dir/written.src" > "$dir/lower.src"
  echo "{" > "$dir/scores.json"
  for input in written upper lower; do
    for mode in sentence-case as-written; do
      [[ $input == written && $mode == as-written ]] && continue
      flags=()
      [[ $mode == as-written ]] && flags=(--no-sentence-case)
      name=$input.$mode
      "$nmt" translate -m "$run" ${decode[@]+"${decode[@]}"} ${flags[@]+"${flags[@]}"} \
        < "$dir/$input.src" > "$dir/$name.hyp"
      lowercase < "$dir/$name.hyp" > "$dir/$name.hyp.lc"
      echo "\"$name\": $("$nmt" score --hyp "$dir/$name.hyp.lc" --ref "$dir/reference.lc" --json)," \
        >> "$dir/scores.json"
    done
  done
  echo "\"label\": \"$label\"}" >> "$dir/scores.json"
done

python3 - "$out" "$@" <<'PY'
import json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
buckets = ["0-5", "6-10", "11-15", "16-30"]
rows = ["| run | test BLEU | chrF | " + " | ".join(f"BLEU {b} words" for b in buckets)
        + " | lower-cased BLEU: as written | CAPITALS | CAPITALS, --no-sentence-case"
        + " | lower case | lower case, --no-sentence-case |",
        "| --- |" + " ---: |" * (2 + len(buckets) + 5)]
for run in runs:
    label = os.path.basename(run.rstrip("/"))
    ev = json.load(open(f"{out}/{label}/eval.json"))
    sc = json.load(open(f"{out}/{label}/scores.json"))
    by = {b["words"]: b for b in ev["by_source_length"]}
    cells = [f"{ev['bleu']['score']:.2f}", f"{ev['chrf']['score']:.2f}"]
    for b in buckets:
        bucket = by.get(b)
        cells.append("–" if not bucket or bucket["bleu"] is None
                     else f"{bucket['bleu']:.2f} ({bucket['sentences']})")
    for name in ["written.sentence-case", "upper.sentence-case", "upper.as-written",
                 "lower.sentence-case", "lower.as-written"]:
        cells.append(f"{sc[name]['bleu']['score']:.2f}")
    rows.append(f"| {label} | " + " | ".join(cells) + " |")
text = "\n".join(rows) + "\n"
open(f"{out}/results.md", "w").write(text)
print(text, end="")
PY
