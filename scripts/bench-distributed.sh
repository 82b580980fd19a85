#!/usr/bin/env bash
# Data-parallel scaling on one machine: the same training (configuration, number of updates) as one
# process using all threads, then as RANKS ranks (`nmt train --nproc RANKS`, Gloo over loopback)
# with THREADS/RANKS threads each. Prints training throughput (real target tokens/s) in total and
# per rank, rank 0's share of training time spent in collectives, and the scaling efficiency
# (throughput of the ranks / throughput of the single process on the same cores).
#
#   scripts/bench-distributed.sh                       # configs/tatoeba-en-es.json, 60 updates
#   STEPS=100 RANKS=2 THREADS=2 CONFIG=configs/seed.json scripts/bench-distributed.sh
#
# Each update of the ranks covers RANKS batches (one per rank), so both sides are timed on their
# throughput, not per update. Logs and runs go to OUT (default runs/bench-distributed).
set -euo pipefail
cd "$(dirname "$0")/.."

NMT=${NMT:-build/src/nmt}
CONFIG=${CONFIG:-configs/tatoeba-en-es.json}
STEPS=${STEPS:-60}
RANKS=${RANKS:-2}
THREADS=${THREADS:-$(nproc)}
OUT=${OUT:-runs/bench-distributed}

if (( THREADS % RANKS != 0 )); then
  echo "bench-distributed: THREADS ($THREADS) must be a multiple of RANKS ($RANKS)" >&2
  exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"

# "trained ...; N steps in M:SS, X target tokens/s" -> X
throughput() { sed -n 's/.* \([0-9][0-9]*\) target tokens\/s.*/\1/p' "$1" | tail -1; }

"$NMT" train --config "$CONFIG" --out "$OUT/single" --max-steps "$STEPS" --threads "$THREADS" \
  > "$OUT/single.log" 2>&1
"$NMT" train --config "$CONFIG" --out "$OUT/ranks" --max-steps "$STEPS" \
  --threads $((THREADS / RANKS)) --nproc "$RANKS" > "$OUT/ranks.log" 2>&1

single=$(throughput "$OUT/single.log")
ranks=$(throughput "$OUT/ranks.log")
collectives=$(sed -n 's/.*training in collectives (\([0-9]*\)%).*/\1/p' "$OUT/ranks.log" | tail -1)
if [[ -z "$single" || -z "$ranks" ]]; then
  echo "bench-distributed: a training failed; see $OUT/single.log and $OUT/ranks.log" >&2
  exit 1
fi
printf '%-34s %12s %12s %14s %11s\n' "setup ($CONFIG, $STEPS updates)" "tokens/s" "per rank" "collectives" "efficiency"
printf '%-34s %12d %12d %14s %11s\n' "1 process x $THREADS threads" "$single" "$single" "-" "1.00"
printf '%-34s %12d %12d %13s%% %11.2f\n' "$RANKS ranks x $((THREADS / RANKS)) threads (gloo)" "$ranks" \
  $((ranks / RANKS)) "$collectives" "$(awk -v a="$ranks" -v b="$single" 'BEGIN { print a / b }')"
