#!/bin/bash
# curve.sh RUN KEEP OUT.tsv : test BLEU (beam 5, the run's decode settings) of every kept epoch checkpoint,
# with the training minutes at that epoch's end (metrics.jsonl), plus the run's final pick.
set -euo pipefail
run=$1 keep=$2 out=$3
nmt=${NMT:-nmt}
printf 'checkpoint\tepoch\tstep\ttrain_minutes\ttest_bleu\ttest_chrf\n' > "$out"
for f in $(ls "$keep"/epoch-*.pt | sort -t- -k2 -n); do
  n=$(basename "$f" .pt); n=${n#epoch-}
  read -r step minutes < <(python3 -c "
import json,sys
for l in open('$run/metrics.jsonl'):
    d=json.loads(l)
    if d.get('event')=='epoch' and d.get('epoch')==$n: print(d['step'], round(d['train_seconds']/60,2))")
  "$nmt" -q eval --model "$run" --checkpoint "$f" --split test --threads 2 --json > "$keep/test-epoch-$n.json"
  read -r bleu chrf < <(python3 -c "import json;d=json.load(open('$keep/test-epoch-$n.json'));print(round(d['bleu']['score'],2), round(d['chrf']['score'],2))")
  printf 'epoch-%s.pt\t%s\t%s\t%s\t%s\t%s\n' "$n" "$n" "$step" "$minutes" "$bleu" "$chrf" >> "$out"
done
cat "$out"
