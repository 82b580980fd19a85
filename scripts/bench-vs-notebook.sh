#!/usr/bin/env bash
# The reference notebook script and nmt, one after the other, with identical model and optimiser
# settings (configs/seed.json: d_model 256, 6+6 layers, 8 heads, batch 128, Adam 5e-4, label
# smoothing 0.05) on the same data and thread count; prints both figures and their ratio.
# Timings on shared machines are noisy: compare only figures from one run of this script.
#
#   scripts/bench-vs-notebook.sh                     training throughput only (about 10 minutes)
#   TRANSLATE=1 scripts/bench-vs-notebook.sh         also translation speed, in fp32, bf16 and int8
#                                                    (about 25 minutes more)
#   TRAIN=0 TRANSLATE=1 scripts/bench-vs-notebook.sh translation speed only
#
# Environment: DATA (Tatoeba TSV), REFERENCE (seed_transformer.py), PYTHON (a python with torch,
# e.g. Debian's python3-torch: NMT_WITH_REFERENCE=1 scripts/install-deps.sh), STEPS (timed
# training steps, 60), THREADS (2), TRAIN_STEPS (updates before translating, 200), OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-../shared/data/tatoeba-en-es/eng-spa.tsv}
reference=${REFERENCE:-../shared/reference/seed_transformer.py}
python=${PYTHON:-/usr/bin/python3}
steps=${STEPS:-60}
threads=${THREADS:-2}
train_steps=${TRAIN_STEPS:-200}
out=${OUT_DIR:-runs/bench-vs-notebook}
nmt=build/src/nmt
mkdir -p "$out"
[[ -f "$data" ]] || { echo "bench-vs-notebook: $data not found (set DATA)" >&2; exit 1; }
"$python" -c 'import torch' 2>/dev/null || { echo "bench-vs-notebook: $python has no torch (apt install python3-torch)" >&2; exit 1; }
field() { "$python" -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
ratio() { "$python" -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

benchmark_training() {
  echo "== training throughput: $steps steps, $threads threads, $(date -u +%FT%TZ)"
  "$python" "$reference" --data "$data" --steps "$steps" --threads "$threads" > "$out/notebook_train.jsonl"
  notebook=$(grep '"phase": "train"' "$out/notebook_train.jsonl")
  notebook_tps=$(field "$notebook" tgt_tokens_per_s)
  bench_train() {  # name, extra flags...
    local name=$1; shift
    "$nmt" -q bench train --config configs/seed.json --data "$data" --steps "$steps" --warmup 5 \
      --threads "$threads" "$@" --json > "$out/nmt_train_$name.json"
    field "$(cat "$out/nmt_train_$name.json")" tgt_tokens_per_s
  }
  local batch128 tokens_fp32 tokens_bf16
  batch128=$(bench_train batch128_fp32 --precision fp32)
  tokens_fp32=$(bench_train tokens1000_fp32 --max-tokens 1000 --precision fp32)
  tokens_bf16=$(bench_train tokens1000_bf16 --max-tokens 1000 --precision bf16)
  printf '%-48s %12s %8s\n' "training (real target tokens/s)" "tokens/s" "ratio"
  printf '%-48s %12.1f %8s\n' "notebook (batch 128)" "$notebook_tps" "1.00"
  printf '%-48s %12.1f %8s\n' "nmt fp32 (batch 128, as the notebook)" "$batch128" "$(ratio "$batch128" "$notebook_tps")"
  printf '%-48s %12.1f %8s\n' "nmt fp32 (max_tokens 1000, length bucketing)" "$tokens_fp32" \
    "$(ratio "$tokens_fp32" "$notebook_tps")"
  printf '%-48s %12.1f %8s\n' "nmt bf16 (max_tokens 1000, length bucketing)" "$tokens_bf16" \
    "$(ratio "$tokens_bf16" "$notebook_tps")"
}

benchmark_translation() {
  echo "== translation: both models trained $train_steps updates with the same settings"
  "$python" "$reference" --data "$data" --steps "$train_steps" --threads "$threads" --save "$out/notebook.pt" \
    > "$out/notebook_train_for_translation.jsonl"
  rm -rf "$out/nmt-run"
  "$nmt" -q train --config configs/seed.json --data "$data" --max-steps "$train_steps" --threads "$threads" \
    --out "$out/nmt-run"
  # 1,000 held-out sentences of nmt's test split (their sources are in no training pair of nmt's run).
  head -n 1000 "$out/nmt-run/test.tsv" | cut -f1 > "$out/sources.txt"
  "$python" "$reference" --data "$data" --load "$out/notebook.pt" --threads "$threads" --translate "$out/sources.txt" \
    --out "$out/notebook.hyp" > "$out/notebook_translate.jsonl"
  notebook_sps=$(field "$(grep '"phase": "translate"' "$out/notebook_translate.jsonl")" sentences_per_s)
  # The notebook decodes at most max_words + 2 = 17 tokens; nmt gets the same limit.
  printf '%-48s %12s %8s\n' "translation, 1000 sentences" "sent/s" "ratio"
  printf '%-48s %12.2f %8s\n' "notebook (greedy, one sentence at a time)" "$notebook_sps" "1.00"
  for strategy in greedy beam; do
    for precision in fp32 bf16 int8; do
      "$nmt" -q bench translate --model "$out/nmt-run" --n 1000 --strategy "$strategy" --beam-size 5 --max-len 17 \
        --threads "$threads" --precision "$precision" --json > "$out/nmt_translate_${strategy}_$precision.json"
      sps=$(field "$(cat "$out/nmt_translate_${strategy}_$precision.json")" sentences_per_s)
      printf '%-48s %12.2f %8s\n' "nmt $strategy$([[ $strategy == beam ]] && echo " 5") $precision (batches of 64)" "$sps" \
        "$(ratio "$sps" "$notebook_sps")"
    done
  done
}

[[ "${TRAIN:-1}" == 0 ]] || benchmark_training
[[ "${TRANSLATE:-0}" == 1 ]] && benchmark_translation
exit 0
