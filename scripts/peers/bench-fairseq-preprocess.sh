#!/usr/bin/env bash
# `nmt prepare` beside fairseq's preparation of the same corpus (issue 65): wall time and peak
# memory of each step, both sides alternating.
#
#   scripts/peers/bench-fairseq-preprocess.sh OUT_DIR [SIZE]     SIZE: pairs, as
#                                                               make-large-corpus.py takes them (3M)
#
# The corpus: scripts/make-large-corpus.py --pairs SIZE --seed 1, two aligned files.
# nmt: `nmt prepare` with the configuration of scripts/bench-prepare.sh (the recommended one with
#   data.max_words 60 and 0.1% valid and test): reading, cleaning, the length filter, the held-out
#   split by source sentence, a shared unigram vocabulary of 8,000 pieces trained on a sample of
#   300,000 pairs, token ids written for training.
# fairseq (0.9.0, .venv/fairseq from scripts/peers/setup-train-venvs.sh fairseq), as its recipes
#   treat raw parallel text with a SentencePiece vocabulary:
#   1. spm-train: a shared unigram model of 8,000 pieces on a seeded sample of 600,000 lines of
#      both files (the sentences of nmt's 300,000 pairs), two threads (scripts/peers/spm_pieces.py);
#   2. spm-encode: both files into pieces, two threads;
#   3. fairseq-preprocess --joined-dictionary --workers 2: the dictionary and the .bin/.idx files.
#   fairseq does no cleaning, no length filter, no deduplication and no held-out split; a user
#   does those before.
# Each side runs ROUNDS times (2), nmt first, alternating; every step runs alone under
# scripts/peak-memory.py (the peak PSS of its whole process tree: fairseq-preprocess works in
# several processes). Environment: NMT (build/src/nmt), ROUNDS (2), SEED (1), VENV (.venv/fairseq).
# Writes OUT_DIR: command.txt, machine.txt (with the peers' versions), config.json, logs/ (every
# step's output), results.md (one row per step and round, then each side's totals).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: scripts/peers/bench-fairseq-preprocess.sh OUT_DIR [SIZE]" >&2
  exit 2
fi
out=$1
size=${2:-3M}
nmt=${NMT:-build/src/nmt}
rounds=${ROUNDS:-2}
seed=${SEED:-1}
venv=${VENV:-.venv/fairseq}
[[ -x $venv/bin/fairseq-preprocess ]] ||
  { echo "bench-fairseq-preprocess: $venv/bin/fairseq-preprocess not found;" \
      "make it with scripts/peers/setup-train-venvs.sh fairseq" >&2; exit 1; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
echo "scripts/peers/bench-fairseq-preprocess.sh $out $size  (NMT=$nmt ROUNDS=$rounds SEED=$seed" \
  "VENV=$venv)" > "$out/command.txt"
{
  scripts/machine-header.sh
  "$nmt" --version | sed 's/^/    /'
  "$venv/bin/python" -c 'import fairseq, sentencepiece, torch
print(f"fairseq {fairseq.__version__}, sentencepiece {sentencepiece.__version__}, torch {torch.__version__}")'
} > "$out/machine.txt"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-fairseq.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

python3 - "$scratch/corpus.en" "$scratch/corpus.es" > "$out/config.json" <<'PY'
import json, sys
config = json.load(open("configs/tatoeba-en-es.json", encoding="utf-8"))
config.pop("description", None)
config["data"].pop("path", None)
config["data"].update({"train": [{"source": sys.argv[1], "target": sys.argv[2]}],
                       "max_words": 60, "valid_fraction": 0.001, "test_fraction": 0.001})
print(json.dumps(config, indent=2))
PY
python3 scripts/make-large-corpus.py --pairs "$size" --seed "$seed" \
  --source "$scratch/corpus.en" --target "$scratch/corpus.es" 2> "$out/logs/corpus.log"

echo "| round | side | step | wall s | peak PSS GiB | processes |" > "$out/rows.md"
echo "| --- | --- | --- | ---: | ---: | ---: |" >> "$out/rows.md"

step() {  # round side name command...: runs it under peak-memory.py, appends its row
  local round=$1 side=$2 name=$3 log=$out/logs/$1-$2-$3.log
  shift 3
  python3 scripts/peak-memory.py "$@" > "$log" 2>&1
  python3 - "$round" "$side" "$name" "$log" >> "$out/rows.md" <<'PY'
import re, sys
round_, side, name, log = sys.argv[1:5]
line = [l for l in open(log, encoding="utf-8", errors="replace") if l.startswith("peak-memory:")][-1]
wall, pss, processes = re.search(r"wall ([\d.]+) s, peak PSS (\d+) kB.*?(\d+) processes", line).groups()
print(f"| {round_} | {side} | {name} | {float(wall):.1f} | {int(pss) / 1024 / 1024:.2f} | {processes} |")
PY
}

for round in $(seq 1 "$rounds"); do
  rm -rf "$scratch/nmt"
  step "$round" nmt prepare "$nmt" prepare --config "$out/config.json" --out "$scratch/nmt"
  rm -rf "$scratch/nmt" "$scratch/fairseq"
  mkdir -p "$scratch/fairseq"
  step "$round" fairseq spm-train "$venv/bin/python" scripts/peers/spm_pieces.py train \
    "$scratch/fairseq/spm" 600000 8000 "$scratch/corpus.en" "$scratch/corpus.es"
  for side in en es; do
    step "$round" fairseq "spm-encode-$side" "$venv/bin/python" scripts/peers/spm_pieces.py encode \
      "$scratch/fairseq/spm.model" "$scratch/corpus.$side" "$scratch/fairseq/train.$side"
  done
  step "$round" fairseq preprocess "$venv/bin/fairseq-preprocess" --source-lang en \
    --target-lang es --trainpref "$scratch/fairseq/train" --destdir "$scratch/fairseq/bin" \
    --joined-dictionary --workers 2
  du -sb "$scratch/fairseq/bin" > "$out/logs/$round-fairseq-bin-size.txt"
  rm -rf "$scratch/fairseq"
done

python3 - "$out/rows.md" > "$out/results.md" <<'PY'
import collections, sys
rows = [l for l in open(sys.argv[1], encoding="utf-8")]
print("".join(rows), end="")
totals = collections.defaultdict(lambda: [0.0, 0.0])
for line in rows[2:]:
    _, round_, side, step, wall, pss, _, _ = [c.strip() for c in line.split("|")]
    totals[(round_, side)][0] += float(wall)
    totals[(round_, side)][1] = max(totals[(round_, side)][1], float(pss))
print("\n| round | side | all steps, wall s | highest step peak, GiB |\n| --- | --- | ---: | ---: |")
for (round_, side), (wall, pss) in sorted(totals.items()):
    print(f"| {round_} | {side} | {wall:.1f} | {pss:.2f} |")
PY
rm -f "$out/rows.md"
cat "$out/results.md"
