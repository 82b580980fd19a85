#!/usr/bin/env bash
# Two builds of nmt serve under the same load test, alternating: ROUNDS rounds of
# scripts/bench-serve.sh (dynamic batching), the baseline first in odd rounds and the candidate
# first in even ones (the second place cost 3-4% on a shared 2-core VM), and a table of each
# build's sentences/s and p99 latency per client count (mean over the rounds, each round listed)
# with the ratio candidate / baseline. For a change to the server itself, e.g. its HTTP
# layer: build the baseline first and keep a copy of its binary.
#
#   scripts/bench-serve-ab.sh BASELINE_NMT CANDIDATE_NMT RUN [OUT_DIR]
#
# Environment: ROUNDS (2), and bench-serve.sh's own (DURATION, WARMUP, CLIENTS, PRECISION,
# STRATEGY, THREADS, SENTENCES, SERVE_FLAGS). Writes OUT_DIR (default
# data/benchmarks/serve-ab-<date>/): command.txt, one bench-serve.sh record per round and build
# (baseline-1/, candidate-1/, ...) and results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/bench-serve-ab.sh BASELINE_NMT CANDIDATE_NMT RUN [OUT_DIR]"
baseline=${1:?$usage}
candidate=${2:?$usage}
run=${3:?$usage}
out=${4:-data/benchmarks/serve-ab-$(date -u +%Y-%m-%d)}
rounds=${ROUNDS:-2}
for binary in "$baseline" "$candidate"; do
  [[ -x "$binary" ]] || { echo "bench-serve-ab: $binary is not an executable" >&2; exit 1; }
done
mkdir -p "$out"
{
  echo "scripts/bench-serve-ab.sh $*  (ROUNDS=$rounds)"
  for binary in "$baseline" "$candidate"; do
    echo "$binary: $("$binary" --version | head -1), sha256 $(sha256sum "$binary" | cut -c1-16)"
  done
} > "$out/command.txt"
for round in $(seq "$rounds"); do
  order=(baseline candidate)
  (( round % 2 == 0 )) && order=(candidate baseline)
  for side in "${order[@]}"; do
    binary=$baseline
    [[ $side == candidate ]] && binary=$candidate
    echo "bench-serve-ab: round $round, $side ($binary)"
    BATCHING=dynamic NMT=$binary scripts/bench-serve.sh "$run" "$out/$side-$round" > /dev/null
  done
done
python3 - "$out" "$rounds" > "$out/results.md" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for side in ("baseline", "candidate"):
    for round_ in range(1, rounds + 1):
        for r in csv.DictReader(open(f"{out}/{side}-{round_}/results.tsv"), delimiter="\t"):
            rows.setdefault((side, int(r["clients"])), []).append(r)
print("| clients | baseline sentences/s | candidate sentences/s | ratio | baseline p99 ms "
      "| candidate p99 ms | errors (baseline, candidate) |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for clients in sorted({c for _, c in rows}):
    b, c = rows[("baseline", clients)], rows[("candidate", clients)]
    rate = lambda rs: statistics.mean(float(r["sentences_per_s"]) for r in rs)
    p99 = lambda rs: statistics.mean(float(r["p99_ms"]) for r in rs)
    each = lambda rs, k: " / ".join(r[k] for r in rs)
    errors = lambda rs: sum(int(r["status_errors"]) + int(r["socket_errors"]) for r in rs)
    print(f"| {clients} | {rate(b):.1f} ({each(b, 'sentences_per_s')}) "
          f"| {rate(c):.1f} ({each(c, 'sentences_per_s')}) | {rate(c) / rate(b):.3f} "
          f"| {p99(b):.1f} ({each(b, 'p99_ms')}) | {p99(c):.1f} ({each(c, 'p99_ms')}) "
          f"| {errors(b)}, {errors(c)} |")
print(f"\nMeans over {rounds} rounds (each round's figure in brackets), the builds alternating "
      "within each round: the baseline first in odd rounds, the candidate first in even ones.")
PY
cat "$out/results.md"
echo "bench-serve-ab: records in $out"
