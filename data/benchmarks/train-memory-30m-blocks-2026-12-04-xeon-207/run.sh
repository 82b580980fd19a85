#!/usr/bin/env bash
# 100 training updates from the prepared 30M pairs of train-memory-30m-2026-12-03-xeon-207, with
# the binary before the block plan (d442e0c, a fresh clone's build) and after it (this commit),
# alternating: bf16 before, bf16 after, fp32 after, fp32 before. Each run's peak resident memory
# and speed in its JSON, its log beside it.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=data/benchmarks/train-memory-30m-blocks-2026-12-04-xeon-207
before=${BEFORE_NMT:-/tmp/x/build/src/nmt}
after=build/src/nmt
{
  scripts/machine-header.sh
  echo "before: $before ($(git -C "$(dirname "$before")/../.." rev-parse HEAD 2>/dev/null || echo '?'))"
  uname -r
  $after --version
} > $out/machine.txt
run() {  # NAME BINARY PRECISION
  echo "$1 start $(date -u +%T)"
  "$2" bench train --config /work/m30/config.json --prepared /work/m30/run --steps 100 \
    --warmup 2 --threads 2 --precision "$3" --json > "$out/$1.json" 2> "$out/$1.log"
  echo "$1 end $(date -u +%T): $(grep -o '"peak_rss_mib":[0-9.]*' "$out/$1.json")"
}
run before-bf16 "$before" bf16
run after-bf16 "$after" bf16
run after-fp32 "$after" fp32
run before-fp32 "$before" fp32
