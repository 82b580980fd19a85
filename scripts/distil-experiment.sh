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
#      it and the students keep their checkpoint of best validation BLEU (train.best_metric);
#   5. every model and the ensemble scored (beam 5, int8) on a test set cut with long sentences kept
#      (scripts/cut-test-set.sh, named as data.test, so no test source is trained on), by source
#      length, and on its part with at most 15 words a side (the recipe's own filter);
#   6. int8 beam-5 speed on 2 cores, the models alternating round by round: the decode alone
#      (`nmt bench translate`) and the whole process translating the test sources (`nmt translate`).
#
# With DEVICE=cuda (the plan for a lent GPU, whose minutes are few) the teachers train side by side
# on the GPU, the ensemble translates there (DISTIL_FLAGS: beam 5, batches of 256), then the
# students and the baseline train side by side there too (SIDE_BY_SIDE=1), and every model is scored
# there (SCORE_DEVICE=cuda: fp32 beam 5); speed stays the CPU's int8 on 2 cores, as users
# translate (SPEED_CPUS pins it to two of the machine's cores):
#
#   T=16m scripts/distil-experiment.sh RECORD_DIR [WORK_DIR]
#   DEVICE=cuda T=110s WARMUP=1000 TEACHER_SEEDS="24 25 27" scripts/distil-experiment.sh RECORD_DIR
#
# STOP_AFTER=STEP (teachers, corpus, ...) ends the script once that step is done, so that a caller
# can choose the next steps' T from the time the first took (scripts/gpu-bench.sh does).
#
# RECORD_DIR gets what a record keeps (machine.txt, logs, eval JSON, each model's test translations,
# speed, summary.md); WORK_DIR
# (default RECORD_DIR/../distil-work) the runs and the corpus, which are not committed. A step whose
# result is in RECORD_DIR is skipped when the script runs again, so a stopped experiment goes on.
# Environment: T (16m), WARMUP (400: the recipe's 1000 updates would not end in T on 2 cores),
# CONFIG (configs/tatoeba-en-es.json), CORPUS (the config's data.path), TEACHER_SEEDS (24 25),
# DEVICE (cpu), DISTIL_FLAGS (the ensemble's decoding), SENTENCES/LONG (5000/300, the test set's
# size), ROUNDS (3), N (2000, sentences per speed run), NMT (build/src/nmt), SIDE_BY_SIDE (0 on the
# CPU, 1 on a GPU), SCORE_DEVICE (cpu), SPEED_CPUS (none: a taskset list), STOP_AFTER (none).
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
  SIDE_BY_SIDE=${SIDE_BY_SIDE:-0}
else
  gpu_decoding="--strategy beam --beam-size 5 --batch-size 256 --device $DEVICE"
  read -r -a distil_decoding <<< "${DISTIL_FLAGS:-$gpu_decoding}"
  # Side by side, each process gets a share of the host's cores for its CPU-side work.
  all_cores=(--device "$DEVICE" --threads 4)
  student_device=(--set "train.device=$DEVICE" --set train.threads=4)
  SIDE_BY_SIDE=${SIDE_BY_SIDE:-1}
fi
SCORE_DEVICE=${SCORE_DEVICE:-cpu}
pinned=()
[[ -z ${SPEED_CPUS:-} ]] || pinned=(taskset -c "$SPEED_CPUS")
corpus_of='import json, sys; print(json.load(open(sys.argv[1]))["data"]["path"])'
CORPUS=${CORPUS:-$(python3 -c "$corpus_of" "$CONFIG")}
NMT=$(realpath "$NMT")

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$record/steps.log"; }
done_step() { [[ -e "$record/$1.done" ]]; }
mark() {
  date -u +%FT%TZ > "$record/$1.done"
  if [[ ${STOP_AFTER:-} == "$1" ]]; then log "stopped after $1 (STOP_AFTER)"; exit 0; fi
}
# beside runs its arguments in the background, maybe_beside too when SIDE_BY_SIDE is 1 (else at
# once); settle waits for them and fails if any failed.
side_pids=()
beside() { "$@" & side_pids+=($!); }
maybe_beside() {
  if [[ $SIDE_BY_SIDE == 1 ]]; then beside "$@"; else "$@"; fi
}
settle() {
  local pid failed=0
  for pid in "${side_pids[@]}"; do wait "$pid" || failed=1; done
  side_pids=()
  return "$failed"
}

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
    teacher_flags=(--threads 1)
  else
    log "${#seeds[@]} teachers side by side for $T on $DEVICE"
    teacher_flags=("${all_cores[@]}")
  fi
  for seed in "${seeds[@]}"; do
    beside train_arm "teacher-$seed" "${teacher_flags[@]}" --seed "$seed"
  done
  settle
  mark teachers
fi

teachers=()
for seed in "${seeds[@]}"; do teachers+=(--model "$work/teacher-$seed"); done
first_teacher=teacher-${seeds[0]}
distil_flags=("${teachers[@]}" "${distil_decoding[@]}")
# The students and the baseline keep the checkpoint of best validation BLEU, as the shipped student
# configuration does: a student's validation loss against human references stops tracking its
# quality early (distil-2026-12-04-h200), and both sides of the comparison choose alike.
selection=(--set train.best_metric=bleu)
student_sets=(--set "train.max_time=$T" --set "train.warmup=$WARMUP" --set train.seed=26
              --set data.max_words=15 "${selection[@]}" "${student_device[@]}")

if ! done_step corpus; then
  log "the ${#seeds[@]}-ensemble translates the training sources (${distil_decoding[*]})"
  /usr/bin/time -v "$NMT" distil "${distil_flags[@]}" --out "$work/student" \
    > "$record/corpus.log" 2> "$record/corpus.time"
  cp "$work/student/distil.json" "$record/distil.json"
  mark corpus
fi

# The corpus is reused: nmt distil goes on from the translations in its --out. Copied before any
# student trains (in $work/student), as students may train side by side.
copy_corpus() {  # name
  rm -rf "${work:?}/$1" && mkdir -p "$work/$1"
  cp "$work/student/"{teacher-translations.tsv,distilled.tsv,distil.json} "$work/$1/"
}
student_arm() {  # name, extra --set flags...
  local name=$1; shift
  /usr/bin/time -v "$NMT" distil "${distil_flags[@]}" --out "$work/$name" --student "$CONFIG" \
    "${student_sets[@]}" "$@" > "$record/$name.log" 2> "$record/$name.time"
  cp "$work/$name/metrics.jsonl" "$record/$name.metrics.jsonl"
}

# The students and the baseline: one after another on all cores, or side by side (a GPU). A step
# is marked once it is done, so a second run goes on with those left.
student_steps=()
done_step student-6-1 || copy_corpus student-6-1
if ! done_step student; then
  log "student of the teachers' shape for $T"
  maybe_beside student_arm student
  student_steps+=(student)
fi
if ! done_step student-6-1; then
  log "6+1 student for $T"
  maybe_beside student_arm student-6-1 --set model.encoder_layers=6 --set model.decoder_layers=1
  student_steps+=(student-6-1)
fi
if ! done_step baseline; then
  log "fair baseline for $T (${all_cores[*]})"
  maybe_beside train_arm baseline "${all_cores[@]}" --seed 26 "${selection[@]}"
  student_steps+=(baseline)
fi
settle
for step in "${student_steps[@]}"; do mark "$step"; done

arms=()
for seed in "${seeds[@]}"; do arms+=("teacher-$seed"); done
arms+=(ensemble student student-6-1 baseline)
if [[ $SCORE_DEVICE == cpu ]]; then
  scoring=(--strategy beam --beam-size 5 --precision int8 --device cpu --json)
else
  scoring=(--strategy beam --beam-size 5 --device "$SCORE_DEVICE" --threads 2 --json)
fi
speed=(--strategy beam --beam-size 5 --precision int8 --device cpu --threads 2)
arm_models() {
  if [[ $1 == ensemble ]]; then echo "${teachers[@]}"; else echo --model "$work/$1"; fi
}
score_arm() {  # arm, JSON file, extra nmt eval flags...
  local arm=$1 json=$2
  shift 2
  # shellcheck disable=SC2046  # arm_models prints flags to split
  "$NMT" eval $(arm_models "$arm") "${scoring[@]}" "$@" > "$json"
}
if ! done_step scores; then
  log "scoring (${scoring[*]})"
  echo "${scoring[*]}" > "$record/scoring.txt"
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
    maybe_beside score_arm "$arm" "$record/eval-$arm.json" -o "$record/hyp-$arm.txt"
    maybe_beside score_arm "$arm" "$record/eval-$arm-short.json" --src "$work/short.src" \
      --ref "$work/short.ref"
  done
  settle
  mark scores
fi

if ! done_step speed; then
  log "speed: int8 beam 5, 2 cores, $ROUNDS rounds alternating"
  head -n "$N" "$work/$first_teacher/test.tsv" | cut -f1 > "$work/speed.src"
  for round in $(seq "$ROUNDS"); do
    for arm in "$first_teacher" student-6-1; do
      "${pinned[@]}" "$NMT" bench translate --model "$work/$arm" "${speed[@]}" -n "$N" --json \
        > "$record/bench-$arm-$round.json"
    done
    for arm in "$first_teacher" ensemble student-6-1; do
      # shellcheck disable=SC2046
      "${pinned[@]}" /usr/bin/time -f "%e s %M KiB" -o "$record/whole-$arm-$round.time" \
        "$NMT" translate $(arm_models "$arm") "${speed[@]}" --no-split < "$work/speed.src" \
        > /dev/null
    done
  done
  mark speed
fi

for arm in "$first_teacher" student student-6-1 baseline; do
  stat -c '%n %s' "$work/$arm"/*.pt > "$record/size-$arm.txt"
done
python3 scripts/distil-summary.py "$record" > "$record/summary.md"
log "done: $record/summary.md"
