#!/usr/bin/env bash
# scripts/abuse-serve.py, briefly, on a model of the sample corpus: normal clients are answered
# alone and under attack, floods of chunk extensions and trailers are refused with 400 at a bounded
# cost in memory (a server that buffered them would grow by what they sent: gigabytes), an
# oversized body gets 413, a long request 200, and an ordinary request after clients that left
# with costly requests 200. Its times are not asserted: that is the record's job.
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$source_dir"
"$nmt" --quiet train --config configs/quickstart.json --out "$scratch/run" --max-steps 20 --threads 1
"${PYTHON:-python3}" scripts/abuse-serve.py "$scratch/run" --nmt "$nmt" --out "$scratch/record" \
  --seconds 1 --idle 20 --slow 4 --clients 1 --case-seconds 2 --flooders 2 --leavers 2 \
  > "$scratch/output.txt" || { cat "$scratch/output.txt"; exit 1; }
"${PYTHON:-python3}" - "$scratch/record/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
problems = []
for phase in ("alone", "under attack"):
    r = results[phase]["translate"]
    if r["failed"] or not r["answered"]:
        problems.append(f"{phase}: {r}")
cases = results["cases"]
for flood in ("chunk extension flood", "trailer flood"):
    c = cases[flood]
    if set(c["statuses"]) - {"400", "open at the end"} or not c["statuses"].get("400"):
        problems.append(f"{flood}: answered {c['statuses']}, expected 400s only")
    if c["mib_sent"] < 64:
        problems.append(f"{flood}: only {c['mib_sent']} MiB sent, too little to show a bound")
    if c["peak_memory_mib"] - c["memory_before_mib"] > 48:
        problems.append(f"{flood}: resident memory grew from {c['memory_before_mib']} to "
                        f"{c['peak_memory_mib']} MiB while {c['mib_sent']} MiB were sent")
expected = {("oversized body", "status"): 413, ("long texts", "status"): 200,
            ("costly clients that leave", "ordinary_status"): 200}
for (case, key), status in expected.items():
    if cases[case][key] != status:
        problems.append(f"{case}: {key} {cases[case][key]}, expected {status}")
# The floods last --case-seconds; the other cases can end before one ordinary request does.
for flood in ("chunk extension flood", "trailer flood"):
    if cases[flood]["ordinary_meanwhile"]["answered"] == 0:
        problems.append(f"{flood}: no ordinary request answered meanwhile")
if problems:
    sys.exit("FAIL:\n" + "\n".join(problems))
PY
grep -q '^| chunk extension flood | ' "$scratch/record/results.md" || { cat "$scratch/record/results.md"; exit 1; }
