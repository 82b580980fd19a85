#!/usr/bin/env bash
# Training runs whose metrics.jsonl, logs and files must not change across the events refactor.
# usage: verify-events.sh BIN OUTDIR
set -uo pipefail
cd /work/main
BIN=$1 OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT"
Q=configs/quickstart.json
run() { local name=$1; shift; "$BIN" train "$@" --out "$OUT/$name" > "$OUT/$name.log" 2>&1; echo "$name rc=$?" >> "$OUT/rc.txt"; }
run epochs --config $Q --set train.epochs=8 train.average_last=3 train.keep_epochs=2 train.early_stopping=3 train.best_metric=bleu train.valid_bleu_sentences=40 train.save_every=7
run every --config $Q --set train.epochs=4 train.valid_every=15 train.early_stopping=2 train.log_every=5
run resume --config $Q --set train.epochs=3 train.average_last=2 --max-steps 25
run resume --config $Q --set train.epochs=3 train.average_last=2 --resume
run timed --config $Q --set train.epochs=3 train.average_last=2 train.max_time=4s
run recipe --config configs/tatoeba-en-es.json --max-steps 100 --set train.log_every=10 train.valid_every=50
for d in "$OUT"/*/; do (cd "$d" && find . -type f | sort > ../$(basename "$d").files); done
