#!/usr/bin/env bash
# Persistent decoding threads vs threads per call: translations, decode speed, serving speed.
set -uo pipefail
cd /work/main
B=/work/bench/before-4272918/nmt A=build/src/nmt R=data/benchmarks/decoding-threads-2026-12-02-xeon-207
echo "== compare translations"; date
bash scripts/compare-translations.sh $B $A /work/bench/cmp-run fp32 int8 2>&1 | tail -6
for strategy in "beam --beam-size 5" greedy; do
  name=$(echo $strategy | cut -d' ' -f1)
  echo "== decoding speed $name, alternating"; date
  BENCH=translate ROUNDS=3 BENCH_FLAGS="--model /work/bench/cmp-run --split test --strategy $strategy --precision int8 --n 1000 --threads 2" scripts/bench-ab.sh $B $A $R/translate-$name 2>&1 | tail -2
  cat $R/translate-$name/results.md
done
echo "== serving, alternating"; date
ROUNDS=3 DURATION=20 CLIENTS="1 8 32" scripts/bench-serve-ab.sh $B $A /work/bench/cmp-run $R/serve 2>&1 | tail -3
cat $R/serve/results.md
date
