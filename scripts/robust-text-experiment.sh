#!/usr/bin/env bash
# Issue 64's converged comparison, as one script whose steps each leave their results in the
# record before the next runs: does the recipe serve long sentences better when it trains on long
# and joined pairs, in capitals and lower case, and with placeholders, once each run has trained to
# the recipe's end (27 epochs)? At equal CPU compute (record robust-text-2026-11-29-epyc) long
# pairs gained 4.7 BLEU at 16-30 words but lost 2.8 at 0-5, with every run stopped at 1,000 updates;
# a GPU trains the recipe to its end in minutes (record gpu-h100-2026-11-26).
#
#   1. a test set cut before any filter, long sentences kept (scripts/cut-test-set.sh, as in record
#      robust-text), named as data.test of every arm, so no test source is trained on;
#   2. the arms, one after another on DEVICE, seed SEED, each CONFIG as it is but for:
#        recipe      nothing (data.max_words 15)
#        long        data.max_words 50, augment_upper 0.05, augment_lower 0.05, augment_concat 0.1
#        long-copy   long's settings and augment_placeholders 0.3
#   3. scripts/bench-robust-text.sh on the arms (test BLEU and chrF whole and by source length;
#      lower-cased BLEU of the sources as written, in CAPITALS and in lower case);
#   4. scripts/bench-copying.sh on the arms (numbers, names, codes, URLs and e-mail addresses kept
#      verbatim).
#
#   DEVICE=cuda NMT=build-gpu/src/nmt scripts/robust-text-experiment.sh RECORD_DIR [WORK_DIR]
#   T=1m EPOCHS=1 SENTENCES=200 LONG=20 scripts/robust-text-experiment.sh /tmp/r /tmp/w  (dry run)
#
# RECORD_DIR gets what a record keeps (machine.txt, steps.log, each arm's training log, metrics and
# prepare.json, the two benchmarks' directories); WORK_DIR (default RECORD_DIR/../robust-work) the
# runs, which are not committed. A step whose result is in RECORD_DIR is skipped when the script
# runs again, so a stopped experiment goes on.
# Environment: DEVICE (cpu: all cores; cuda, cuda:N), CONFIG (configs/tatoeba-en-es.json), CORPUS
# (the config's data.path), T (the config's train.max_time), EPOCHS (the config's train.epochs),
# SEED (23), ARMS ("recipe long long-copy"), SENTENCES/LONG (2000/300, the test set of record
# robust-text), DECODE_FLAGS (the arms' own decode sections: beam 5), NMT (build/src/nmt).
set -euo pipefail
usage="usage: scripts/robust-text-experiment.sh RECORD_DIR [WORK_DIR]"
[[ $# -ge 1 && $# -le 2 ]] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/.."
record=$(mkdir -p "$1" && cd "$1" && pwd)
work=${2:-$record/../robust-work}
mkdir -p "$work" && work=$(cd "$work" && pwd)
CONFIG=${CONFIG:-configs/tatoeba-en-es.json} DEVICE=${DEVICE:-cpu} SEED=${SEED:-23}
NMT=$(realpath "${NMT:-build/src/nmt}")
read -r -a arms <<< "${ARMS:-recipe long long-copy}"
corpus_of='import json, sys; print(json.load(open(sys.argv[1]))["data"]["path"])'
CORPUS=${CORPUS:-$(python3 -c "$corpus_of" "$CONFIG")}

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$record/steps.log"; }
done_step() { [[ -e "$record/$1.done" ]]; }
mark() { date -u +%FT%TZ > "$record/$1.done"; }

arm_settings() {  # arm -> its --set flags, one per line
  local long=(data.max_words=50 data.augment_upper=0.05 data.augment_lower=0.05
              data.augment_concat=0.1)
  case $1 in
    recipe) ;;
    long) printf '%s\n' "${long[@]}" ;;
    long-copy) printf '%s\n' "${long[@]}" data.augment_placeholders=0.3 ;;
    *) echo "robust-text-experiment: unknown arm '$1' (recipe, long, long-copy)" >&2; return 2 ;;
  esac
}
for arm in "${arms[@]}"; do arm_settings "$arm" > /dev/null; done

[[ -e "$record/machine.txt" ]] || {
  scripts/machine-header.sh > "$record/machine.txt"
  "$NMT" --version >> "$record/machine.txt"
  [[ $DEVICE == cpu ]] || nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv \
    >> "$record/machine.txt" 2>&1 || true
}

if ! done_step test-set; then
  log "cutting the test set (SENTENCES=${SENTENCES:-2000} LONG=${LONG:-300})"
  SENTENCES=${SENTENCES:-2000} LONG=${LONG:-300} \
    scripts/cut-test-set.sh "$CORPUS" "$work/test-long.tsv"
  wc -l < "$work/test-long.tsv" > "$record/test-set-lines.txt"
  mark test-set
fi

common=(--config "$CONFIG" --set "data.path=$CORPUS" --set "data.test=$work/test-long.tsv"
        --seed "$SEED" --device "$DEVICE")
[[ -n ${T:-} ]] && common+=(--max-time "$T")
[[ -n ${EPOCHS:-} ]] && common+=(--epochs "$EPOCHS")
[[ $DEVICE == cpu ]] && common+=(--threads 0)

for arm in "${arms[@]}"; do
  done_step "train-$arm" && continue
  sets=()
  while read -r setting; do sets+=(--set "$setting"); done < <(arm_settings "$arm")
  log "training $arm on $DEVICE (${sets[*]:-the recipe as it is})"
  rm -rf "${work:?}/$arm"
  /usr/bin/time -v "$NMT" train "${common[@]}" "${sets[@]}" --out "$work/$arm" \
    > "$record/train-$arm.log" 2> "$record/train-$arm.time"
  cp "$work/$arm/metrics.jsonl" "$record/metrics-$arm.jsonl"
  cp "$work/$arm/prepare.json" "$record/prepare-$arm.json"
  mark "train-$arm"
done

runs=()
for arm in "${arms[@]}"; do runs+=("$work/$arm"); done
if ! done_step robust; then
  log "test split, by length and in capitals and lower case (scripts/bench-robust-text.sh)"
  NMT=$NMT scripts/bench-robust-text.sh "$record/robust" "${runs[@]}" > "$record/robust.log"
  mark robust
fi
if ! done_step copying; then
  log "numbers, names, codes and addresses kept verbatim (scripts/bench-copying.sh)"
  NMT=$NMT scripts/bench-copying.sh "$record/copying" "${runs[@]}" > "$record/copying.log"
  mark copying
fi
log "done: $record/robust/results.md, $record/copying/results.md"
