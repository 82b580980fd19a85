#!/usr/bin/env bash
# 100 training updates from the prepared 30M pairs, bf16 (nmt's oneDNN cache, now 24) and fp32,
# with this working tree's nmt (mapping released every 256 copies).
set -euo pipefail
cd /work/main
for precision in bf16 fp32; do
  build/src/nmt bench train --config /work/m30/config.json --prepared /work/m30/run --steps 100 \
    --warmup 2 --threads 2 --precision $precision --json > /work/m30/after-$precision.json
done
echo done
