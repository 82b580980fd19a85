#!/usr/bin/env bash
# Translations of the recommended model's 5,439 test sentences by nmt at 59a492e and at HEAD.
set -euo pipefail
out=$1
before=/work/sweep/nmt-59a492e
after=/work/main/build/src/nmt
scratch=$(mktemp -d)
cut -f1 /work/runs/tatoeba/test.tsv > "$scratch/src"
{
echo "\$ nmt -q translate --model runs/tatoeba --strategy S --precision P < (source side of runs/tatoeba/test.tsv), by nmt at 59a492e and at $(git -C /work/main rev-parse --short HEAD); $(date -u '+%Y-%m-%d %H:%M UTC')"
for precision in fp32 bf16 int8; do
  for strategy in greedy beam; do
    "$before" -q translate --model /work/runs/tatoeba --strategy $strategy --precision $precision < "$scratch/src" > "$scratch/before"
    "$after" -q translate --model /work/runs/tatoeba --strategy $strategy --precision $precision < "$scratch/src" > "$scratch/after"
    if cmp -s "$scratch/before" "$scratch/after"; then echo "$precision $strategy: identical ($(wc -l < "$scratch/src") sentences)";
    else echo "$precision $strategy: $(diff "$scratch/before" "$scratch/after" | grep -c '^<') lines differ"; diff "$scratch/before" "$scratch/after" | head -40 || true; fi
  done
done
} > "$out"
rm -rf "$scratch"
cat "$out"
