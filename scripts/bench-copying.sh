#!/usr/bin/env bash
# What a model copies verbatim, run by run (issue 64, docs/real-text.md): the 150 sentences of
# scripts/copy-test-set.py (30 each with numbers, names, codes, URLs, e-mail addresses, of our own
# making) translated with `nmt translate`, and each span that a correct Spanish translation keeps
# as written (555-0199, Przemysław, FV/6514/22, https://example.com/a?b=1, ana.lopez@example.net)
# looked for in the hypothesis by scripts/count-verbatim.py. The goal: 95% or more kept.
#
#   scripts/bench-copying.sh OUT_DIR RUN [RUN...]
#
# Decoding: the runs' own decode sections unless DECODE_FLAGS says otherwise.
#
# Environment: NMT (build/src/nmt), DECODE_FLAGS (""). Writes OUT_DIR: command.txt, machine.txt
# (date, CPU model and ISA flags, tier, commit), copy-test.tsv (the sentences and their spans),
# per run <label>/ with copy.hyp and copy.json (kept and total, by category, and every lost span
# with its source and hypothesis); results.md with one row per run. The label of a run is its
# directory's name.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/bench-copying.sh OUT_DIR RUN [RUN...]" >&2
  exit 2
fi
out=$1
shift
nmt=${NMT:-build/src/nmt}
read -r -a decode <<< "${DECODE_FLAGS:-}"
for run in "$@"; do
  [[ -d $run ]] || { echo "bench-copying: $run is not a directory" >&2; exit 2; }
done
mkdir -p "$out"
echo "scripts/bench-copying.sh $out $*  (NMT=$nmt DECODE_FLAGS=${decode[*]:-})" > "$out/command.txt"
{
  scripts/machine-header.sh
  "$nmt" --version | sed 's/^/    /'
} > "$out/machine.txt"

python3 scripts/copy-test-set.py "$out/copy-test.tsv"
cut -f1 "$out/copy-test.tsv" > "$out/copy.src"

for run in "$@"; do
  label=$(basename "$run")
  dir=$out/$label
  mkdir -p "$dir"
  "$nmt" translate -m "$run" ${decode[@]+"${decode[@]}"} < "$out/copy.src" > "$dir/copy.hyp"
  python3 scripts/count-verbatim.py "$out/copy-test.tsv" "$dir/copy.hyp" > "$dir/copy.json"
done

python3 - "$out" "$@" <<'PY'
import json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
categories = ["number", "name", "code", "url", "email"]
rows = ["| run | kept verbatim | % | " + " | ".join(categories) + " |",
        "| --- |" + " ---: |" * (2 + len(categories))]
for run in runs:
    label = os.path.basename(run.rstrip("/"))
    result = json.load(open(f"{out}/{label}/copy.json", encoding="utf-8"))
    by = result["by_category"]
    cells = [f"{result['kept']}/{result['total']}",
             f"{100 * result['kept'] / result['total']:.1f}" if result["total"] else "–"]
    cells += [f"{by[c]['kept']}/{by[c]['total']}" if c in by else "–" for c in categories]
    rows.append(f"| {label} | " + " | ".join(cells) + " |")
text = "\n".join(rows) + "\n"
open(f"{out}/results.md", "w").write(text)
print(text, end="")
PY
