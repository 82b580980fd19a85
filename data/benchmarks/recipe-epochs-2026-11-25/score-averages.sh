#!/usr/bin/env bash
# Scores, on the VALID split only, the mean of the last K epochs' weights ending at epoch E, for
# each E and K, from one run that kept every epoch (train.keep_epochs). With the inverse-sqrt
# schedule nothing in epochs 1..E depends on train.epochs, so the mean ending at E is what a run
# with train.epochs=E and train.average_last=K keeps as averaged.pt.
#
#   score-averages.sh RUN "19 21 23 25 27" "4 6 8" > averages.tsv
set -euo pipefail
run=$1 ends=$2 counts=$3
nmt=${NMT:-build/src/nmt}
printf 'last_epoch\taveraged\tvalid_bleu\tvalid_chrf\tvalid_loss\n'
for end in $ends; do
  for count in $counts; do
    files=()
    for ((epoch = end - count + 1; epoch <= end; epoch++)); do files+=("epoch-$epoch.pt"); done
    name="mean-$end-$count.pt"
    "$nmt" -q average --model "$run" "${files[@]}" --out "$run/$name" --force > /dev/null
    "$nmt" -q eval --model "$run" --checkpoint "$name" --split valid --threads 2 --json > "$run/${name%.pt}.valid.json"
    python3 - "$run/${name%.pt}.valid.json" "$end" "$count" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{r['bleu']['score']:.2f}\t{r['chrf']['score']:.2f}\t{r['loss']:.4f}")
PY
  done
done
