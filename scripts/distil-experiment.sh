#!/usr/bin/env bash
# Measures what sequence-level distillation buys (issue 68), as one script whose steps each leave
# their results in the record before the next runs. On the CPU (DEVICE=cpu, the plan for a 2-core
# session):
#
#   1. the teachers (CONFIG, seeds TEACHER_SEEDS: 24 25) side by side for T, one core each;
#   2. their ensemble translates every training source (int8, beam 4): the distilled corpus;
#   3. a student of the teachers' shape and a deep-encoder/shallow-decoder student (6+1 layers),
#      each trained for T on all cores on that corpus (seed 26);
#   4. the fair baseline: CONFIG trained for T on all cores on the human references (seed 26);
#   5. every model and the ensemble scored (beam 5, int8) on a test set cut with long sentences kept
#      (scripts/cut-test-set.sh, named as data.test, so no test source is trained on), by source
#      length, and on its part with at most 15 words a side (the recipe's own filter);
#   6. int8 beam-5 speed on 2 cores, the models alternating round by round: the decode alone
#      (`nmt bench translate`) and the whole process translating the test sources (`nmt translate`).
#
# With DEVICE=cuda (the plan for a lent GPU) the teachers train one after another on the GPU, the
# ensemble translates there (DISTIL_FLAGS: beam 5) and so do the students and the baseline train;
# scores and speed stay on the CPU's int8, as users translate:
#
#   T=16m scripts/distil-experiment.sh RECORD_DIR [WORK_DIR]
#   DEVICE=cuda T=85m WARMUP=1000 TEACHER_SEEDS="24 25 27" scripts/distil-experiment.sh RECORD_DIR
#
# RECORD_DIR gets what a record keeps (machine.txt, logs, eval JSON, speed, summary.md); WORK_DIR
# (default RECORD_DIR/../distil-work) the runs and the corpus, which are not committed. A step whose
# result is in RECORD_DIR is skipped when the script runs again, so a stopped experiment goes on.
# Environment: T (16m), WARMUP (400: the recipe's 1000 updates would not end in T on 2 cores),
# CONFIG (configs/tatoeba-en-es.json), CORPUS (the config's data.path), TEACHER_SEEDS (24 25),
# DEVICE (cpu), DISTIL_FLAGS (the ensemble's decoding), SENTENCES/LONG (5000/300, the test set's
# size), ROUNDS (3), N (2000, sentences per speed run), NMT (build/src/nmt).
set -euo pipefail
usage="usage: T=16m scripts/distil-experiment.sh RECORD_DIR [WORK_DIR]"
[[ $# -ge 1 ]] || { echo "$usage" >&2; exit 2; }
record=$(mkdir -p "$1" && cd "$1" && pwd)
work=${2:-$record/../distil-work}
mkdir -p "$work" && work=$(cd "$work" && pwd)
T=${T:-16m} WARMUP=${WARMUP:-400} CONFIG=${CONFIG:-configs/tatoeba-en-es.json}
ROUNDS=${ROUNDS:-3} N=${N:-2000} NMT=${NMT:-build/src/nmt} DEVICE=${DEVICE:-cpu}
read -r -a seeds <<< "${TEACHER_SEEDS:-24 25}"
if [[ $DEVICE == cpu ]]; then
  cpu_decoding="--strategy beam --beam-size 4 --precision int8 --translators 2 --decode-threads 1"
  read -r -a distil_decoding <<< "${DISTIL_FLAGS:-$cpu_decoding}"
  all_cores=(--threads 0) student_device=()
else
  read -r -a distil_decoding <<< "${DISTIL_FLAGS:---strategy beam --beam-size 5 --device $DEVICE}"
  all_cores=(--device "$DEVICE") student_device=(--set "train.device=$DEVICE")
fi
corpus_of='import json, sys; print(json.load(open(sys.argv[1]))["data"]["path"])'
CORPUS=${CORPUS:-$(python3 -c "$corpus_of" "$CONFIG")}
NMT=$(realpath "$NMT")

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$record/steps.log"; }
done_step() { [[ -e "$record/$1.done" ]]; }
mark() { date -u +%FT%TZ > "$record/$1.done"; }

[[ -e "$record/machine.txt" ]] || {
  scripts/machine-header.sh > "$record/machine.txt"
  "$NMT" --version >> "$record/machine.txt"
}
common=(--set "data.path=$CORPUS" --set "data.test=$work/test-long.tsv" --set "train.warmup=$WARMUP"
        --max-time "$T")

if ! done_step test-set; then
  log "cutting the test set (SENTENCES=${SENTENCES:-5000} LONG=${LONG:-300})"
  SENTENCES=${SENTENCES:-5000} LONG=${LONG:-300} \
    scripts/cut-test-set.sh "$CORPUS" "$work/test-long.tsv"
  wc -l < "$work/test-long.tsv" > "$record/test-set-lines.txt"
  mark test-set
fi

train_arm() {  # name, extra nmt train flags...
  local name=$1; shift
  rm -rf "${work:?}/$name"
  /usr/bin/time -v "$NMT" train --config "$CONFIG" "${common[@]}" --out "$work/$name" "$@" \
    > "$record/$name.log" 2> "$record/$name.time" || return 1
  cp "$work/$name/metrics.jsonl" "$record/$name.metrics.jsonl"
}

if ! done_step teachers; then
  if [[ $DEVICE == cpu ]]; then
    log "${#seeds[@]} teachers side by side for $T, one core each"
    pids=()
    for seed in "${seeds[@]}"; do
      train_arm "teacher-$seed" --threads 1 --seed "$seed" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
  else
    log "${#seeds[@]} teachers one after another for $T on $DEVICE"
    for seed in "${seeds[@]}"; do train_arm "teacher-$seed" --device "$DEVICE" --seed "$seed"; done
  fi
  mark teachers
fi

teachers=()
for seed in "${seeds[@]}"; do teachers+=(--model "$work/teacher-$seed"); done
first_teacher=teacher-${seeds[0]}
distil_flags=("${teachers[@]}" "${distil_decoding[@]}")
student_sets=(--set "train.max_time=$T" --set "train.warmup=$WARMUP" --set train.seed=26
              --set data.max_words=15 "${student_device[@]}")

if ! done_step corpus; then
  log "the ${#seeds[@]}-ensemble translates the training sources (${distil_decoding[*]})"
  /usr/bin/time -v "$NMT" distil "${distil_flags[@]}" --out "$work/student" \
    > "$record/corpus.log" 2> "$record/corpus.time"
  cp "$work/student/distil.json" "$record/distil.json"
  mark corpus
fi

student_arm() {  # name, extra --set flags...
  local name=$1; shift
  if [[ $name != student ]]; then  # the corpus is reused: nmt distil goes on from its translations
    rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
    cp "$work/student/"{teacher-translations.tsv,distilled.tsv,distil.json} "$work/$name/"
  fi
  /usr/bin/time -v "$NMT" distil "${distil_flags[@]}" --out "$work/$name" --student "$CONFIG" \
    "${student_sets[@]}" "$@" > "$record/$name.log" 2> "$record/$name.time"
  cp "$work/$name/metrics.jsonl" "$record/$name.metrics.jsonl"
}

if ! done_step student; then
  log "student of the teachers' shape for $T"
  student_arm student
  mark student
fi
if ! done_step student-6-1; then
  log "6+1 student for $T"
  student_arm student-6-1 --set model.encoder_layers=6 --set model.decoder_layers=1
  mark student-6-1
fi
if ! done_step baseline; then
  log "fair baseline for $T (${all_cores[*]})"
  train_arm baseline "${all_cores[@]}" --seed 26
  mark baseline
fi

arms=()
for seed in "${seeds[@]}"; do arms+=("teacher-$seed"); done
arms+=(ensemble student student-6-1 baseline)
scoring=(--strategy beam --beam-size 5 --precision int8 --device cpu --json)
speed=(--strategy beam --beam-size 5 --precision int8 --device cpu --threads 2)
arm_models() {
  if [[ $1 == ensemble ]]; then echo "${teachers[@]}"; else echo --model "$work/$1"; fi
}
if ! done_step scores; then
  log "scoring (beam 5, int8)"
  # The part of the test set the recipe's length filter would keep: at most 15 words a side.
  python3 - "$work/$first_teacher/test.tsv" "$work/short.src" "$work/short.ref" <<'PY'
import sys
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as s, \
        open(sys.argv[3], "w", encoding="utf-8") as r:
    for line in f:
        src, ref = line.rstrip("\n").split("\t")[:2]
        if len(src.split()) <= 15 and len(ref.split()) <= 15:
            s.write(src + "\n"); r.write(ref + "\n")
PY
  wc -l < "$work/short.src" > "$record/short-lines.txt"
  for arm in "${arms[@]}"; do
    # shellcheck disable=SC2046  # arm_models prints flags to split
    "$NMT" eval $(arm_models "$arm") "${scoring[@]}" > "$record/eval-$arm.json"
    # shellcheck disable=SC2046
    "$NMT" eval $(arm_models "$arm") "${scoring[@]}" --src "$work/short.src" \
      --ref "$work/short.ref" > "$record/eval-$arm-short.json"
  done
  mark scores
fi

if ! done_step speed; then
  log "speed: int8 beam 5, 2 cores, $ROUNDS rounds alternating"
  head -n "$N" "$work/$first_teacher/test.tsv" | cut -f1 > "$work/speed.src"
  for round in $(seq "$ROUNDS"); do
    for arm in "$first_teacher" student-6-1; do
      "$NMT" bench translate --model "$work/$arm" "${speed[@]}" -n "$N" --json \
        > "$record/bench-$arm-$round.json"
    done
    for arm in "$first_teacher" ensemble student-6-1; do
      # shellcheck disable=SC2046
      /usr/bin/time -f "%e s %M KiB" -o "$record/whole-$arm-$round.time" "$NMT" translate \
        $(arm_models "$arm") "${speed[@]}" --no-split < "$work/speed.src" > /dev/null
    done
  done
  mark speed
fi

for arm in "$first_teacher" student student-6-1 baseline; do
  stat -c '%n %s' "$work/$arm"/*.pt > "$record/size-$arm.txt"
done
python3 scripts/distil-summary.py "$record" > "$record/summary.md"
log "done: $record/summary.md"
