#!/usr/bin/env bash
# 30M pairs on this Xeon: prepare's peak, then 100 training updates in bf16 (oneDNN cache 24)
# and in fp32 (this CPU's default) from the prepared run, each with its peak.
set -euo pipefail
cd /work/main
nmt=/work/m30/nmt-bin/src/nmt
echo "start $(date -u +%FT%TZ)"
python3 scripts/make-large-corpus.py --pairs 30M --seed 1 --source /work/m30/c.en --target /work/m30/c.es
python3 - <<'PY'
import json
c=json.load(open('/work/mem/config.json'))
c['data']['train']=[{'source':'/work/m30/c.en','target':'/work/m30/c.es'}]
json.dump(c,open('/work/m30/config.json','w'),indent=1)
PY
/usr/bin/time -v $nmt prepare --config /work/m30/config.json --out /work/m30/run > /work/m30/prepare.log 2>&1
grep -E "Elapsed|Maximum resident|Percent of CPU" /work/m30/prepare.log
rm -f /work/m30/c.en /work/m30/c.es
ONEDNN_PRIMITIVE_CACHE_CAPACITY=24 $nmt bench train --config /work/m30/config.json --prepared /work/m30/run --steps 100 --warmup 2 --threads 2 --precision bf16 --json > /work/m30/bf16-cache24.json
$nmt bench train --config /work/m30/config.json --prepared /work/m30/run --steps 100 --warmup 2 --threads 2 --precision fp32 --json > /work/m30/fp32.json
echo "end $(date -u +%FT%TZ)"
