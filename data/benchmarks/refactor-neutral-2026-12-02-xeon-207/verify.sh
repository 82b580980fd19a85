#!/usr/bin/env bash
# After the build: behaviour-neutral checks of the issue-69 refactors against /work/bench/before.
set -uo pipefail
cd /work/main
B=/work/bench/before/nmt A=build/src/nmt
echo "== compare translations"; date
bash scripts/compare-translations.sh $B $A /work/bench/cmp-run fp32 int8 2>&1 | tail -8
echo "== seeded 100-step training"; date
for side in before after; do
  bin=$B; [[ $side == after ]] && bin=$A
  rm -rf /work/bench/train-$side
  $bin -q train --config configs/tatoeba-en-es.json --max-steps 100 --set train.log_every=10 --out /work/bench/train-$side > /work/bench/train-$side.log 2>&1; echo "$side rc=$?"
done
python3 - <<'PY'
import json
def load(side):
    rows=[]
    for line in open(f"/work/bench/train-{side}/metrics.jsonl"):
        r=json.loads(line)
        for k in list(r):
            if k in ("time","tokens_per_s","train_seconds","seconds","src_tokens_per_s","tgt_tokens_per_s","processor","eta_seconds") or "second" in k or "per_s" in k: r.pop(k)
        rows.append(r)
    return rows
a,b=load("before"),load("after")
print("records", len(a), len(b), "identical (times left out):", a==b)
for x,y in zip(a,b):
    if x!=y: print("differ:", x, y); break
PY
echo "== decoding speed, alternating"; date
BENCH=translate ROUNDS=3 BENCH_FLAGS="--model /work/bench/cmp-run --split test --strategy beam --beam-size 5 --precision int8 --n 1000 --threads 2" scripts/bench-ab.sh /work/bench/before/nmt build/src/nmt /work/bench/translate-ab 2>&1 | tail -3
cat /work/bench/translate-ab/results.md
echo "== bf16 peak with nmt's own cache bound"; date
build/src/nmt -q bench train --config /work/mem/config.json --prepared /work/mem/run --steps 100 --warmup 2 --threads 2 --precision bf16 --json > /work/bench/bf16-nmt-bound.json
python3 -c "import json;d=json.load(open('/work/bench/bf16-nmt-bound.json'));print(round(d['tgt_tokens_per_s'],1), d['peak_rss_mib'])"
date
