#!/usr/bin/env bash
# Training comparison of issue 24: nmt against OpenNMT-py 3.5 and JoeyNMT 2.3 (PyPI, PyPI's torch
# on the CPU) and Marian 1.12 (a CPU build of marian-dev made beside the project; no script of ours
# builds it: docs/performance.md says what it takes), on the same prepared split, the same
# SentencePiece pieces, the same architecture and the same threads, one tool after the other:
#   1. throughput: real target tokens/s over the same number of updates after a warm-up;
#   2. quality: each tool trains for the same wall-clock budget, then translates the valid and test
#      splits with beam 5; everything is detokenised by the same SentencePiece model and scored by
#      sacreBLEU (PyPI, pinned) against the same references.
# Writes a record directory (command, machine, versions, calibration, raw logs, hypotheses, result
# JSONs, training.md); checkpoints and runs go to a scratch directory.
#
#   scripts/peers/bench-train.sh                                  # the real measurement, ~2.5 hours
#   scripts/peers/bench-train.sh --budget 60 --steps 6 --warmup 2 --data data/sample/en-es.tsv \
#       --out /tmp/peers-check --work /tmp/peers-check-work      # end-to-end check, ~25 minutes here
#
# Options (defaults in brackets):
#   --config FILE      nmt configuration whose split, vocabulary and model are compared
#                      [configs/tatoeba-en-es.json]; the peers' configurations are
#                      scripts/peers/{onmt,joey}-tatoeba.yaml and marian-tatoeba.yml, which
#                      state this model
#   --data TSV         replaces the configuration's corpus (data.path), e.g. for a small check
#   --budget SECONDS   wall clock of training per tool in the quality comparison [1800]
#   --steps N          timed updates of the throughput comparison [100]
#   --warmup N         untimed updates before them [20]
#   --tools LIST       comma-separated, in order: nmt, onmt, joey, marian [nmt,onmt,joey, and
#                      marian when MARIAN is set]
#   --threads N        threads of every tool [2]
#   --tier avx2        holds every tool to the AVX2 tier, as on a CPU without AVX-512:
#                      NMT_CPU_ISA=avx2 for nmt, ATEN_CPU_CAPABILITY=avx2 for LibTorch's kernels
#                      (nmt's and the peers' PyPI torch), OPENBLAS_CORETYPE=Haswell,
#                      MKL_ENABLE_INSTRUCTIONS=AVX2 and ONEDNN_MAX_CPU_ISA=AVX2 for the libraries
#                      under them [the CPU's own]; meta.json and training.md say which
#   --cpus LIST        CPUs for taskset [0..threads-1]
#   --nmt-precisions L nmt's training precisions in the quality comparison [auto]; the
#                      throughput comparison always measures nmt in fp32 and in auto (bf16 on
#                      CPUs with AVX512-BF16), since the peers train in fp32 on the CPU
#   --out DIR          record directory [data/benchmarks/peers-train-<UTC date>[-TIER]]
#   --work DIR         scratch: split, pieces, runs, checkpoints [runs/peers-<UTC date>]
#   --skip-throughput, --skip-quality
# A tool that cannot run (its environment cannot be made, it crashes, it finds no checkpoint)
# gets a row saying why; the others go on. Exit status: 0 when the record was written, 2 usage.
# Environment: PYTHON and VENV_ROOT (.venv), as for scripts/peers/setup-train-venvs.sh; NMT
# (build/src/nmt); MARIAN, the directory holding Marian's `marian` and `marian-decoder`.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
# The binaries are part of the command: records of nmt built against other LibTorch versions, or of
# another Marian build, differ by them.
command_line="${NMT:+NMT=$NMT }${MARIAN:+MARIAN=$MARIAN }scripts/peers/bench-train.sh $*"
nmt=${NMT:-build/src/nmt}
config=configs/tatoeba-en-es.json
data=""
budget=1800
steps=100
warmup=20
tools=""
threads=2
cpus=""
nmt_precisions=auto
tier=""
date_tag=$(date -u +%F)
out=""
work=""
do_throughput=1
do_quality=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --config) config=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --tier) tier=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --nmt-precisions) nmt_precisions=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --skip-throughput) do_throughput=0; shift ;;
    --skip-quality) do_quality=0; shift ;;
    -h|--help) usage ;;
    *) echo "bench-train: unknown option $1" >&2; usage ;;
  esac
done
for number in "$budget" "$steps" "$warmup" "$threads"; do
  [[ $number =~ ^[0-9]+$ ]] || { echo "bench-train: not a whole number: $number" >&2; exit 2; }
done
(( warmup >= 1 && steps >= 1 )) || { echo "bench-train: --warmup and --steps must be at least 1" >&2; exit 2; }
[[ -n $tools ]] || tools=nmt,onmt,joey${MARIAN:+,marian}
for tool in ${tools//,/ }; do
  [[ $tool =~ ^(nmt|onmt|joey|marian)$ ]] ||
    { echo "bench-train: unknown tool $tool (nmt, onmt, joey, marian)" >&2; exit 2; }
done
[[ -n $cpus ]] || cpus=0-$((threads - 1))
case $tier in
  "") tier_said="the CPU's own (no cap)" ;;
  avx2)
    export NMT_CPU_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell \
      MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2
    tier_said="avx2 (NMT_CPU_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell"
    tier_said+=" MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2)" ;;
  *) echo "bench-train: --tier: expected avx2, got '$tier'" >&2; exit 2 ;;
esac
if [[ -z $out ]]; then
  out=data/benchmarks/peers-train-$date_tag${tier:+-$tier}
  if [[ -n $data ]] || (( budget < 600 )); then
    echo "bench-train: a check with --data or a budget under 600 s writes no record into" \
      "data/benchmarks/: give --out (and --work)" >&2
    exit 2
  fi
fi
[[ -n $work ]] || work=runs/peers-$date_tag
[[ -x $nmt ]] || { echo "bench-train: $nmt not found (build first: scripts/build.sh)" >&2; exit 1; }
mkdir -p "$out/results" "$out/logs" "$out/configs" "$out/hypotheses" "$work"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)
rm -f "$out"/results/*.json

data_flags=()
[[ -n $data ]] && data_flags=(--data "$data")
export OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
pin=(taskset -c "$cpus")
venv_root=$(mkdir -p "${VENV_ROOT:-.venv}" && cd "${VENV_ROOT:-.venv}" && pwd)
export VENV_ROOT=$venv_root
score_python=$venv_root/score/bin/python
helper() { "$score_python" scripts/peers/train_helper.py "$@"; }
log() { echo "== bench-train $(date -u +%T): $*"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
has_tool() { [[ ,$tools, == *,$1,* ]]; }
# The last lines of a log, for a row that says why a tool did not run.
why() { tail -n "${2:-3}" "$1" 2>/dev/null | tr '\n|' '  ' | cut -c1-400; }

# --- Environments: a tool whose environment cannot be made is reported, not fatal. ---
log "environments"
scripts/peers/setup-train-venvs.sh score > "$out/logs/setup-score.log" 2>&1 ||
  { cat "$out/logs/setup-score.log" >&2; echo "bench-train: the scoring environment is needed" >&2; exit 1; }
declare -A unusable=()
for tool in onmt joey; do
  has_tool $tool || continue
  if ! scripts/peers/setup-train-venvs.sh $tool > "$out/logs/setup-$tool.log" 2>&1; then
    unusable[$tool]="its environment could not be made: $(why "$out/logs/setup-$tool.log")"
    echo "bench-train: $tool cannot run: ${unusable[$tool]}" >&2
  fi
done
marian_dir=${MARIAN:-}
if has_tool marian; then
  if [[ -z $marian_dir ]]; then
    unusable[marian]="MARIAN is not set (the directory of a Marian build with marian and marian-decoder)"
  elif [[ ! -x $marian_dir/marian || ! -x $marian_dir/marian-decoder ]]; then
    unusable[marian]="no marian and marian-decoder executables in MARIAN=$marian_dir"
  fi
  [[ -z ${unusable[marian]:-} ]] || echo "bench-train: marian cannot run: ${unusable[marian]}" >&2
fi
# Peak memory of a Marian run (the Python peers measure their own): GNU time, when installed.
measured() {
  local rss_file=$1; shift
  if [[ -x /usr/bin/time ]]; then /usr/bin/time -f 'max_rss_kib %M' -o "$rss_file" "$@"; else "$@"; fi
}

# --- Record: command, machine, versions ---
versions=$(mktemp)
{
  # The LibTorch the binary was built against (`nmt --version` names it): Debian's or a 2.x build's.
  echo "{\"nmt\": \"$("$nmt" --version | head -n 1) (git $(git rev-parse --short HEAD 2>/dev/null || echo ?), $("$nmt" --version | sed -n 2p))\","
  echo "\"score\": \"$("$score_python" -c 'import sacrebleu, sentencepiece; print("sacreBLEU", sacrebleu.__version__, "sentencepiece", sentencepiece.__version__)')\""
  for tool in onmt joey; do
    has_tool $tool && [[ -z ${unusable[$tool]:-} ]] || continue
    if [[ $tool == onmt ]]; then probe='import onmt, torch; print("OpenNMT-py", onmt.__version__, "torch", torch.__version__)'
    else probe='import joeynmt, torch; print("JoeyNMT", joeynmt.__version__, "torch", torch.__version__)'; fi
    echo ", \"$tool\": \"$("$venv_root/$tool/bin/python" -c "$probe" 2>/dev/null | tail -1)\""
  done
  if has_tool marian && [[ -z ${unusable[marian]:-} ]]; then
    echo ", \"marian\": \"Marian $("$marian_dir/marian" --version 2>&1 | tail -1)\""
  fi
  echo "}"
} > "$versions"
lscpu > "$out/lscpu.txt"
cpu_model=$(sed -n 's/^Model name: *//p' "$out/lscpu.txt" | head -1)
cpu_flags=""
for flag in avx2 avx512f avx512_vnni avx512_bf16 amx_int8 avx_vnni; do
  grep -qw "$flag" /proc/cpuinfo && cpu_flags+="$flag " || cpu_flags+="no-$flag "
done
echo "$command_line" > "$out/command.txt"
helper merge "$out/meta.json" --set "date=$(date -u +%FT%TZ)" --set "command=$command_line" \
  --set "cpu=$cpu_model" --set "cpu_flags=${cpu_flags% }" --set "tier=$tier_said" \
  --set "commit=$(git rev-parse HEAD)" --set "cores=$(nproc)" --set "threads=$threads" --set "cpus=$cpus" \
  --set "budget=$budget" --set "steps=$steps" --set "warmup=$warmup" \
  --set "loadavg_start=$(loadavg)" --set "kernel=$(uname -r)" --set "versions@=$versions" \
  --set "data=${data:-the corpus of $config}, split by nmt prepare --config $config"
rm -f "$versions"

# --- Data: the one split, its pieces and each tool's batch setting ---
log "prepare: nmt prepare --config $config ${data_flags[*]}"
rm -rf "$work/split"
"$nmt" prepare --config "$config" "${data_flags[@]}" --out "$work/split" > "$out/logs/prepare.log" 2>&1
rm -f "$work/split/train.lock"
helper pieces "$work/split" "$work/pieces" > /dev/null
helper calibrate "$work/pieces" "$work/calibration.json" \
  --max-tokens "$("$score_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["train"]["max_tokens"])' "$work/split/config.json")" > /dev/null
cp "$work/split/config.json" "$out/configs/nmt-config.json"
cp "$work/split/prepare.json" "$work/pieces/pieces.json" "$work/calibration.json" "$out/"
calib() { "$score_python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]][sys.argv[3]])' "$work/calibration.json" "$1" "$2"; }
train_pairs=$("$score_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["train_pairs"])' "$work/calibration.json")
valid_pairs=$(wc -l < "$work/pieces/valid.tgt")
epoch_steps=$(calib nmt batches_per_epoch)
max_tokens=$(calib nmt max_tokens)
log "split: $train_pairs training pairs, $epoch_steps nmt updates per epoch; batch settings: onmt $(calib onmt batch_size), joey $(calib joey batch_size), marian $(calib marian batch_size)"

# fill TEMPLATE OUT KEY=VALUE...: a peer configuration with its @KEY@ fields replaced.
fill() {
  local template=$1 target=$2; shift 2
  local script=()
  for pair in "$@"; do script+=(-e "s|@${pair%%=*}@|${pair#*=}|g"); done
  sed "${script[@]}" "$template" > "$target"
  if grep -q '@[A-Z_]*@' "$target"; then echo "bench-train: unfilled field in $target" >&2; return 1; fi
}
# peer_config TOOL RUN_DIR TRAIN_STEPS VALID_STEPS [DISPLAY_STEPS]: the tool's configuration for
# one run (TRAIN_STEPS 0: until the budget; DISPLAY_STEPS: Marian's log interval).
peer_config() {
  local tool=$1 run=$2 train_steps=$3 valid_steps=$4 display_steps=${5:-50}
  mkdir -p "$run"
  case $tool in
    marian) fill scripts/peers/marian-tatoeba.yml "$run/config.yml" "PIECES=$work/pieces" "RUN=$run" \
              "BATCH_WORDS=$(calib marian batch_size)" "SEED=23" "THREADS=$threads" \
              "AFTER=${train_steps}u" "DISP_STEPS=$display_steps" "VALID_STEPS=$valid_steps" ;;
    onmt) fill scripts/peers/onmt-tatoeba.yaml "$run/config.yaml" "PIECES=$work/pieces" "RUN=$run" \
            "BATCH_SIZE=$(calib onmt batch_size)" "BUCKET_SIZE=$train_pairs" "SEED=23" \
            "TRAIN_STEPS=$train_steps" "VALID_STEPS=$valid_steps" ;;
    joey) local subset=500 logging=50
          (( valid_pairs > subset )) || subset=-1
          # JoeyNMT 2.3 needs validation_freq to be a multiple of logging_freq: the largest
          # divisor of it up to nmt's train.log_every 50 (34 for 238 updates per epoch).
          while (( valid_steps % logging != 0 )); do logging=$((logging - 1)); done
          fill scripts/peers/joey-tatoeba.yaml "$run/config.yaml" "PIECES=$work/pieces" "RUN=$run" \
            "LOAD_MODEL=$run/model/latest.ckpt" "BATCH_SIZE=$(calib joey batch_size)" \
            "DEV_SUBSET=$subset" "SEED=23" "TRAIN_STEPS=$train_steps" "LOG_STEPS=$logging" \
            "VALID_STEPS=$valid_steps" ;;
  esac
}
# peer_train TOOL RUN_DIR DEADLINE MAX_STEPS GUARD_S: trains through peer_train.py; log in RUN_DIR.
peer_train() {
  local tool=$1 run=$2 deadline=$3 max_steps=$4 guard=$5 args
  if [[ $tool == onmt ]]; then args=(-config "$run/config.yaml"); else args=("$run/config.yaml"); fi
  (cd "$run" && timeout -k 60 "$guard" "${pin[@]}" "$venv_root/$tool/bin/python" \
    "$repo/scripts/peers/peer_train.py" $tool --deadline "$deadline" --max-steps "$max_steps" \
    --threads "$threads" --step-log "$run/steps.jsonl" -- "${args[@]}") > "$run/train.log" 2>&1
}
label_of() {
  case $1 in
    nmt) echo "nmt" ;; onmt) echo "OpenNMT-py" ;; joey) echo "JoeyNMT" ;; marian) echo "Marian" ;;
  esac
}
order=0

# --- 1. Throughput ---
if (( do_throughput )); then
  total=$((warmup + steps))
  for tool in ${tools//,/ }; do
    key=throughput-$tool
    if [[ -n ${unusable[$tool]:-} ]]; then
      helper merge "$out/results/$key.json" --set kind=throughput --set "tool=$(label_of $tool)" \
        --set "order=$((order += 1))" --set "error=${unusable[$tool]}"
      continue
    fi
    case $tool in
      nmt)
        for precision in fp32 auto; do
          log "throughput: nmt $precision, $steps updates after $warmup (load $(loadavg))"
          name=nmt-$precision
          if timeout -k 60 7200 "${pin[@]}" "$nmt" bench train --config "$config" "${data_flags[@]}" \
              --steps "$steps" --warmup "$warmup" --threads "$threads" --precision "$precision" \
              --json > "$out/logs/throughput-$name.json" 2> "$out/logs/throughput-$name.log"; then
            shown=$("$score_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["precision"])' "$out/logs/throughput-$name.json")
            [[ $precision == auto ]] && shown="$shown (auto)"
            "$score_python" -c '
import json, sys
b = json.load(open(sys.argv[1]))
print(json.dumps({"tgt_tokens_per_s": round(b["tgt_tokens_per_s"], 1), "ms_per_step": round(b["ms_per_step"], 1),
                  "mean_tgt_tokens_per_step": b["tgt_tokens_per_step"], "padding_fraction": round(b["padding_fraction"], 3),
                  "peak_rss_mib": round(b["peak_rss_mib"]), "steps": b["steps"]}))' \
              "$out/logs/throughput-$name.json" > "$work/$name.figures.json"
            helper merge "$out/results/throughput-$name.json" --json "$work/$name.figures.json" \
              --set kind=throughput --set tool=nmt --set "precision=$shown" --set "order=$((order += 1))" \
              --set "batch=max_tokens $max_tokens (padded target positions, length-sorted)" \
              --set "how=nmt bench train --json: tgt_tokens_per_s (its own timer around the timed updates)"
          else
            helper merge "$out/results/throughput-$name.json" --set kind=throughput --set tool=nmt \
              --set "precision=$precision" --set "order=$((order += 1))" \
              --set "error=nmt bench train failed: $(why "$out/logs/throughput-$name.log")"
          fi
        done ;;
      onmt|joey)
        log "throughput: $tool, $steps updates after $warmup (load $(loadavg))"
        run=$work/throughput/$tool
        rm -rf "$run"
        peer_config $tool "$run" 1000000 1000000000
        if peer_train $tool "$run" 0 "$total" 7200 && [[ -s $run/steps.jsonl ]]; then
          helper steps "$run/steps.jsonl" "$work/$key.figures.json" --warmup "$warmup" --steps "$steps" > /dev/null
          case $tool in
            onmt) batch="batch_size $(calib onmt batch_size) tokens: rows x max(source, target+2)" ;;
            joey) batch="batch_size $(calib joey batch_size) tokens: rows x max(source+1, target+1), unsorted" ;;
          esac
          helper merge "$out/results/$key.json" --json "$work/$key.figures.json" --set kind=throughput \
            --set "tool=$(label_of $tool)" --set precision=fp32 --set "order=$((order += 1))" \
            --set "batch=$batch" \
            --set "how=peer_train.py per-update log: real target tokens of each batch, time from the end of update $warmup to the end of update $total"
        else
          helper merge "$out/results/$key.json" --set kind=throughput --set "tool=$(label_of $tool)" \
            --set precision=fp32 --set "order=$((order += 1))" \
            --set "error=training failed: $(why "$run/train.log")"
        fi
        cp "$run/train.log" "$out/logs/throughput-$tool.log" 2>/dev/null || true
        cp "$run/steps.jsonl" "$out/logs/throughput-$tool.steps.jsonl" 2>/dev/null || true
        cp "$run/config.yaml" "$out/configs/$tool-throughput.yaml" 2>/dev/null || true ;;
      marian)
        log "throughput: marian, $steps updates after $warmup (load $(loadavg))"
        run=$work/throughput/marian
        rm -rf "$run"
        # Its log has a line every DISPLAY updates: one at update $warmup and one at $total.
        display=$("$score_python" -c "import math; print(math.gcd($warmup, $steps))")
        peer_config marian "$run" "$total" 1000000000 "$display"
        if measured "$run/rss.txt" timeout -k 60 7200 "${pin[@]}" "$marian_dir/marian" -c "$run/config.yml" \
            > "$run/stdout.log" 2>&1 &&
           helper marian-steps "$run/train.log" "$work/$key.figures.json" --warmup "$warmup" \
             --steps "$steps" --rss "$run/rss.txt" > /dev/null; then
          helper merge "$out/results/$key.json" --json "$work/$key.figures.json" --set kind=throughput \
            --set tool=Marian --set precision=fp32 --set "order=$((order += 1))" \
            --set "batch=mini-batch-words $(calib marian batch_size): real source tokens (with </s>), length-sorted" \
            --set "how=Marian's log: Time and words/s every $display updates, from the line of update $warmup to that of update $total"
        else
          helper merge "$out/results/$key.json" --set kind=throughput --set tool=Marian \
            --set precision=fp32 --set "order=$((order += 1))" \
            --set "error=training failed: $(why "$run/stdout.log")"
        fi
        cp "$run/train.log" "$out/logs/throughput-marian.log" 2>/dev/null || true
        cp "$run/config.yml" "$out/configs/marian-throughput.yml" 2>/dev/null || true ;;
    esac
  done
fi

# --- 2. Quality after the same wall-clock budget ---
# score_pair TOOL_KEY VALID_PIECES_OR_TEXT TEST_... IS_PIECES: detokenise when needed, then score.
score_outputs() {
  local key=$1 valid=$2 test=$3 is_pieces=$4 split
  for split in valid test; do
    local hyp=$valid
    [[ $split == test ]] && hyp=$test
    if [[ $is_pieces == 1 ]]; then
      helper detok "$work/split/spm.model" "$hyp" "$work/$key.$split.hyp"
    else
      cp "$hyp" "$work/$key.$split.hyp"
    fi
    helper score "$work/$key.$split.hyp" "$work/pieces/$split.tgt" "$work/$key.$split.score.json" > /dev/null
    gzip -c "$work/$key.$split.hyp" > "$out/hypotheses/$key.$split.txt.gz"
  done
}
quality_row() {  # KEY TOOL PRECISION WEIGHTS STEPS WALL_S [ERROR]
  local key=$1 steps=$5 epochs=""
  [[ -n $steps && $steps != null ]] && epochs=$("$score_python" -c "print(round($steps / $epoch_steps, 2))")
  local flags=(--set kind=quality --set "tool=$2" --set "precision=$3" --set "weights=$4"
               --set "steps=${steps:-null}" --set "epochs=${epochs:-null}" --set "train_wall_s=${6:-null}"
               --set "order=$((order += 1))")
  if [[ -n ${7:-} ]]; then
    flags+=(--set "error=$7")
  else
    flags+=(--set "valid@=$work/$key.valid.score.json" --set "test@=$work/$key.test.score.json")
  fi
  helper merge "$out/results/$key.json" "${flags[@]}"
}
now() { date +%s.%N; }
elapsed() { "$score_python" -c "print(round($2 - $1, 1))"; }

if (( do_quality )); then
  for tool in ${tools//,/ }; do
    if [[ -n ${unusable[$tool]:-} ]]; then
      quality_row quality-$tool "$(label_of $tool)" "" "" "" "" "${unusable[$tool]}"
      continue
    fi
    case $tool in
      nmt)
        for precision in ${nmt_precisions//,/ }; do
          key=quality-nmt-$precision
          run=$work/quality/nmt-$precision
          rm -rf "$run"
          mkdir -p "$(dirname "$run")"
          cp -r "$work/split" "$run"  # prepared data: `--resume` trains from step 0 without a data phase
          log "quality: nmt $precision, $budget s (load $(loadavg))"
          start=$(now)
          status=0
          # Only the budget stops it, as the peers: no epoch limit, no early stopping.
          timeout -s TERM -k 900 "$budget" "${pin[@]}" "$nmt" train --resume --out "$run" \
            --threads "$threads" --precision "$precision" --epochs 100000 \
            --set train.early_stopping=0 > "$out/logs/quality-nmt-$precision.log" 2>&1 || status=$?
          wall=$(elapsed "$start" "$(now)")
          cp "$run/metrics.jsonl" "$out/logs/quality-nmt-$precision.metrics.jsonl" 2>/dev/null || true
          if [[ ! -f $run/checkpoint.pt ]]; then
            quality_row $key nmt "$precision" "" "" "$wall" \
              "no checkpoint after training (exit $status): $(why "$out/logs/quality-nmt-$precision.log")"
            continue
          fi
          end_json=$(helper nmt-end "$run/metrics.jsonl")
          done_steps=$("$score_python" -c 'import json,sys; print(json.loads(sys.argv[1]).get("steps"))' "$end_json")
          shown=$precision
          if [[ $precision == auto ]]; then  # train.precision auto: bf16 on CPUs with AVX512-BF16
            if grep -qw avx512_bf16 /proc/cpuinfo; then shown="bf16 (auto)"; else shown="fp32 (auto)"; fi
          fi
          # The weights at the stop (checkpoint.pt), and nmt's own pick when it has one
          # (averaged.pt, else best.pt), which `nmt translate` and `nmt eval` use by default.
          picks=(checkpoint.pt)
          for pick in averaged.pt best.pt; do
            [[ -f $run/$pick ]] && { picks+=("$pick"); break; }
          done
          for pick in "${picks[@]}"; do
            pick_key=$key
            [[ $pick != checkpoint.pt ]] && pick_key=$key-${pick%.pt}
            ok=1
            for split in valid test; do
              timeout -k 60 7200 "${pin[@]}" "$nmt" eval --model "$run" --checkpoint "$pick" --split $split \
                --strategy beam --beam-size 5 --length-penalty 1.0 --precision fp32 --threads "$threads" \
                --out "$work/$pick_key.$split.out" --json > "$out/logs/$pick_key-eval-$split.json" \
                2> "$out/logs/$pick_key-eval-$split.log" || ok=0
            done
            label="checkpoint.pt (at the stop)"
            [[ $pick != checkpoint.pt ]] && label="$pick (nmt's default pick)"
            if (( ok )); then
              score_outputs "$pick_key" "$work/$pick_key.valid.out" "$work/$pick_key.test.out" 0
              quality_row "$pick_key" nmt "$shown" "$label" "$done_steps" "$wall"
            else
              quality_row "$pick_key" nmt "$shown" "$label" "$done_steps" "$wall" \
                "nmt eval failed: $(why "$out/logs/$pick_key-eval-test.log")"
            fi
          done
        done ;;
      onmt|joey)
        key=quality-$tool
        run=$work/quality/$tool
        rm -rf "$run"
        peer_config $tool "$run" 1000000 "$epoch_steps"
        log "quality: $tool, $budget s (load $(loadavg))"
        start=$(now)
        deadline=$("$score_python" -c "print($start + $budget)")
        status=0
        peer_train $tool "$run" "$deadline" 0 $((budget + 3600)) || status=$?
        wall=$(elapsed "$start" "$(now)")
        cp "$run/train.log" "$out/logs/quality-$tool.log" 2>/dev/null || true
        cp "$run/steps.jsonl" "$out/logs/quality-$tool.steps.jsonl" 2>/dev/null || true
        cp "$run/config.yaml" "$out/configs/$tool-quality.yaml"
        done_steps=$("$score_python" -c '
import json, sys
steps = [json.loads(l).get("steps") for l in open(sys.argv[1]) if "\"end\"" in l]
print(steps[-1] if steps else "")' "$run/steps.jsonl" 2>/dev/null || true)
        if [[ $tool == onmt ]]; then
          weights=$(ls "$run"/model_step_*.pt 2>/dev/null | sort -t_ -k3 -n | tail -1)
        else
          weights=$(readlink -f "$run/model/latest.ckpt" 2>/dev/null || true)
        fi
        if [[ -z $weights || ! -f $weights ]]; then
          quality_row $key "$(label_of $tool)" fp32 "" "$done_steps" "$wall" \
            "no checkpoint after training (exit $status): $(why "$run/train.log")"
          continue
        fi
        log "quality: $tool translates valid and test with $(basename "$weights")"
        ok=1
        if [[ $tool == onmt ]]; then
          for split in valid test; do
            timeout -k 60 7200 "${pin[@]}" "$venv_root/onmt/bin/onmt_translate" -model "$weights" \
              -src "$work/pieces/$split.sp.src" -output "$run/$split.hyp.sp" -beam_size 5 \
              -length_penalty avg -batch_size 64 -batch_type sents -max_length 256 -gpu -1 \
              > "$out/logs/$key-translate-$split.log" 2>&1 || ok=0
          done
          valid_out=$run/valid.hyp.sp test_out=$run/test.hyp.sp
        else
          (cd "$run" && timeout -k 60 14400 "${pin[@]}" "$venv_root/joey/bin/python" -m joeynmt test \
            "$run/config.yaml" --output-path "$run/hyp") > "$out/logs/$key-translate.log" 2>&1 || ok=0
          valid_out=$run/hyp.dev test_out=$run/hyp.test
        fi
        if (( ok )) && [[ -s $valid_out && -s $test_out ]]; then
          score_outputs $key "$valid_out" "$test_out" 1
          quality_row $key "$(label_of $tool)" fp32 "$(basename "$weights") (at the stop)" "$done_steps" "$wall"
        else
          quality_row $key "$(label_of $tool)" fp32 "$(basename "$weights")" "$done_steps" "$wall" \
            "translation failed: $(why "$(ls -t "$out/logs/$key-translate"*.log | head -1)")"
        fi ;;
      marian)
        key=quality-marian
        run=$work/quality/marian
        rm -rf "$run"
        peer_config marian "$run" 0 "$epoch_steps"
        log "quality: marian, $budget s (load $(loadavg))"
        start=$(now)
        status=0
        # SIGTERM at the budget: Marian finishes its update and saves model.npz (--sigterm
        # save-and-exit, its default), as nmt does. This build then does not always exit (seen
        # here: saved, then idle until killed), so once its log has been quiet for 30 s after the
        # signal it is killed; the wall clock ends at its last log line.
        "${pin[@]}" "$marian_dir/marian" -c "$run/config.yml" > "$run/stdout.log" 2>&1 &
        marian_pid=$!
        while kill -0 $marian_pid 2>/dev/null && (( $(date +%s) < ${start%.*} + budget )); do
          sleep 1
        done
        kill -TERM $marian_pid 2>/dev/null || true
        while kill -0 $marian_pid 2>/dev/null &&
              (( $(date +%s) - $(stat -c %Y "$run/train.log") < 30 )); do
          sleep 1
        done
        last_line=$(stat -c %Y "$run/train.log")
        kill -KILL $marian_pid 2>/dev/null || true
        wait $marian_pid || status=$?
        wall=$(elapsed "$start" "$last_line")
        cp "$run/train.log" "$out/logs/quality-marian.log" 2>/dev/null || true
        cp "$run/config.yml" "$out/configs/marian-quality.yml"
        done_steps=$(helper marian-end "$run/model.npz.progress.yml" 2>/dev/null || true)
        if [[ ! -f $run/model.npz ]]; then
          quality_row $key Marian fp32 "" "$done_steps" "$wall" \
            "no model.npz after training (exit $status): $(why "$run/stdout.log")"
          continue
        fi
        log "quality: marian translates valid and test with model.npz"
        ok=1
        for split in valid test; do
          timeout -k 60 7200 "${pin[@]}" "$marian_dir/marian-decoder" -m "$run/model.npz" \
            -v "$work/pieces/vocab.marian.txt" "$work/pieces/vocab.marian.txt" \
            -i "$work/pieces/$split.sp.src" -o "$run/$split.hyp.sp" --beam-size 5 --normalize 1 \
            --cpu-threads "$threads" --mini-batch 64 --maxi-batch 100 --maxi-batch-sort src \
            --max-length 256 --max-length-crop > "$out/logs/$key-translate-$split.log" 2>&1 || ok=0
        done
        if (( ok )) && [[ -s $run/valid.hyp.sp && -s $run/test.hyp.sp ]]; then
          score_outputs $key "$run/valid.hyp.sp" "$run/test.hyp.sp" 1
          quality_row $key Marian fp32 "model.npz (at the stop)" "$done_steps" "$wall"
        else
          quality_row $key Marian fp32 model.npz "$done_steps" "$wall" \
            "translation failed: $(why "$(ls -t "$out/logs/$key-translate"*.log | head -1)")"
        fi ;;
    esac
  done
fi

# --- Table ---
notes=$(mktemp)
"$score_python" - "$work/calibration.json" "$notes" "$tools" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
tools = sys.argv[3].split(",")
n, o, j, m = c["nmt"], c["onmt"], c["joey"], c["marian"]
batches = {
    "onmt": f"OpenNMT-py counts rows x max(source, target + 2): batch_size {o['batch_size']} gives {o['mean_real_tgt_tokens']:,} ({o['at_nominal']:,} at {n['max_tokens']}); it drops {o['dropped_pairs_per_epoch']:,} pairs per epoch whose source is already in their batch.",
    "joey": f"JoeyNMT fills batches from unsorted pairs counting padding: batch_size {j['batch_size']} gives {j['mean_real_tgt_tokens']:,} ({j['at_nominal']:,} at {n['max_tokens']}).",
    "marian": f"Marian closes a length-sorted batch once its real source tokens (with </s>) exceed mini-batch-words: {m['batch_size']} gives {m['mean_real_tgt_tokens']:,} ({m['at_nominal']:,} at {n['max_tokens']}).",
}
notes = [
    f"Data: the split of nmt prepare ({c['train_pairs']:,} training pairs), encoded once into the pieces of its SentencePiece model for every peer; each peer's vocabulary file is the model's pieces 4-7999 plus its own four specials (8,000 entries, as nmt's; Marian's has two, </s> and <unk>: 7,998).",
    " ".join([f"Batches: nmt's max_tokens {n['max_tokens']} counts padded target positions of length-sorted batches: {n['mean_real_tgt_tokens']:,} real target tokens per update, {n['batches_per_epoch']} updates per epoch."]
             + [text for tool, text in batches.items() if tool in tools]),
    "Architecture as configs/tatoeba-en-es.json in every tool (pre-norm, d 256, 4+4 layers, 4 heads, ff 1024, ReLU, one shared embedding matrix tied to the output, scaled by sqrt(d), sinusoidal positions, label smoothing 0.1, dropout 0.1, Adam 0.9/0.999 with 1,000 linear warm-up steps to 1e-3 and inverse-square-root decay, gradient norm clipped at 1). Not matched (details in scripts/peers/*-tatoeba.y*ml): initialisation of linear layers (Xavier in the peers); dropout after the feed-forward ReLU (OpenNMT-py, JoeyNMT) and on attention weights (JoeyNMT); no output bias and layer-norm epsilon 1e-6 in JoeyNMT; layer-norm epsilon 1e-6 and sines and cosines concatenated, not interleaved, in Marian; JoeyNMT's beam length penalty ((5 + n) / 6)^1 instead of n^1.",
    "Precision: the peers train in fp32 (none has CPU mixed precision); nmt's throughput is shown in fp32 and in its default (bf16 autocast on CPUs with AVX512-BF16), its quality run in its default.",
    "Validation during the budget: nmt at each epoch's end (loss on the valid split + 500 greedy translations); the peers every nmt-epoch's worth of updates (OpenNMT-py and Marian: loss; JoeyNMT: loss and greedy translations of 500 random valid sentences). All of it counts in the budget.",
    "Stopping: nmt by SIGTERM (it saves checkpoint.pt at the current update); OpenNMT-py and JoeyNMT by scripts/peers/peer_train.py at the first update after the deadline, after which each writes its usual final checkpoint; Marian by SIGTERM (it finishes the update and saves model.npz).",
]
if "marian" in tools:
    notes.append("Marian 1.12's released decoder mistranslates pre-norm models: in step-by-step decoding its decoder self-attention leaves the layer norm off the keys and values (src/models/transformer.h; docs/performance.md, Training against Marian), so its BLEU here is not its model's quality.")
json.dump({"notes": notes}, open(sys.argv[2], "w"))
EOF
helper merge "$out/meta.json" --json "$out/meta.json" --json "$notes" --set "loadavg_end=$(loadavg)"
rm -f "$notes"
# The templates of the peers this run trained, as scripts/peers/ held them.
for tool in onmt joey marian; do
  if has_tool "$tool"; then cp scripts/peers/"$tool"-tatoeba.y*ml "$out/configs/"; fi
done
helper table "$out" > /dev/null
log "record written to $out (training.md); scratch in $work"
cat "$out/training.md"
