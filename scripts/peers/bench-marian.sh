#!/usr/bin/env bash
# nmt against transformers and CTranslate2 on one full-size random Marian model with
# opus-mt-en-es's shape, one system after the other on the same sentences, and a record of it:
#
#   scripts/peers/bench-marian.sh           # the measurement, about 2.5 hours on 2 idle cores:
#                                           # record data/benchmarks/marian-<UTC date>
#   scripts/peers/bench-marian.sh --quick   # a check of the whole chain, about 2 minutes
#
# 1. Model (made once, kept in the work directory): a random MarianMTModel saved by transformers in
#    the hub's layout (scripts/peers/bench_marian_model.py): d_model 512, 6+6 layers, 8 heads,
#    FFN 2048, swish, scaled, shared and tied embeddings, a vocabulary of 58,101 entries
#    (SentencePiece models of 8,000 pieces per side trained on the Tatoeba pairs, padded with
#    unused pieces that are never generated), and an "</s> clock": </s>'s logit grows with the
#    output position, its bias calibrated so that greedy outputs are as long as their sources on
#    average (a random model otherwise ends at once or never). nmt imports it (nmt import
#    --format marian); CTranslate2's own converter converts it (TransformersConverter).
# 2. Translation of N (2000) English sentences, drawn with seed 7 from the Tatoeba file
#    (data/tatoeba-en-es/eng-spa.tsv.gz, distinct English sides; raw/sources.txt): greedy and beam
#    4, at most 64 output tokens before </s>, batches of 32 sentences sorted by source length (all
#    three systems sort), THREADS (2) threads in all, each timed inside its process after a warm-up
#    on 16 sentences, model loading excluded, tokenising and detokenising included. The threads are
#    laid out as TxD (LAYOUTS: 1xTHREADS and THREADSx1): T translators, each decoding its own
#    batches on D threads, for the two systems that have translators:
#      nmt            nmt bench translate --translators T --decode-threads D, fp32, bf16 and
#                     int8; beam 4 with transformers' stopping rule (the import's beam_stop: best)
#                     and with CTranslate2's (--beam-stop first), each compared with that system;
#                     the translations from nmt translate with the same flags (first round and
#                     first layout only)
#      transformers   MarianMTModel.generate, torch.set_num_threads(THREADS) (1xTHREADS only),
#                     fp32 and bf16 (the model in bfloat16)
#      CTranslate2    Translator(compute_type float32, bfloat16, int8; inter_threads T,
#                     intra_threads D), translate_batch(max_batch_size 32), once per --ct2-isa
#    Each round runs every setting once, the three systems one after the other (nmt,
#    transformers, CTranslate2); ROUNDS (2) rounds; the tables give each system's best round and
#    layout of each setting, and which layout that was. Output tokens are counted without </s>, as
#    nmt bench translate does.
# 3. Fine-tuning throughput on pairs drawn with seed 11 from the same file (raw/train.tsv), 32
#    pairs per step, WARMUP (3) untimed then STEPS (20) timed steps, fp32 and bf16 autocast:
#      nmt            nmt bench train --config CONFIG (train.init_from: the imported run) --data
#                     raw/train.tsv --batch-size 32 (it holds out 15% as valid and test pairs and
#                     shuffles the rest with its own seed)
#      transformers   Seq2SeqTrainer (use_cpu, bf16) and a plain AdamW loop, on the file's pairs
#                     in its order (scripts/peers/bench_marian_train.py)
#    Same settings on both sides: constant learning rate 1e-4, Adam without weight decay, label
#    smoothing 0.1, gradient norm clipped at 1, dropout 0.1. Target tokens are counted as nmt does:
#    target pieces and </s>, no padding. Rounds as for translation.
#
# To measure every system at a lower tier, give the caps to the whole script, e.g. the AVX2 tier:
#   NMT_CPU_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell \
#     scripts/peers/bench-marian.sh --ct2-isa AVX2 ...
# (machine.txt records them, and the tier each library then reports.)
#
# Options (defaults in brackets):
#   --quick            d_model 64, 2+2 layers, 4 heads, FFN 256, 8,000 entries; 100 sentences, 1
#                      round, 1+2 training steps; the record goes to a temporary directory unless
#                      --out is given, never into data/benchmarks/
#   --out DIR          record directory [data/benchmarks/marian-<UTC date>]
#   --work DIR         the model, its import and conversion, scratch [runs/bench-marian-full, with
#                      --quick runs/bench-marian-quick]; delete it to make the model again
#   --n N              sentences translated [2000]
#   --rounds N         rounds [2]
#   --steps N, --warmup N   timed and untimed fine-tuning steps [20, 3]
#   --threads N        threads of every system [2]
#   --layouts "TxD ..."  thread layouts of nmt and CTranslate2, T * D = THREADS ["1x2 2x1"]
#   --ct2-isa "ISA ..."  CTranslate2 measured once per ISA: own (its own choice, which
#                      machine.txt shows: AVX2 on AMD CPUs even when they have AVX512) or a
#                      CT2_FORCE_CPU_ISA value (AVX2, AVX512, ...) [own]
#   --skip-translate, --skip-train
#   -h, --help
# The record: command.txt, commit (git rev-parse HEAD and the work tree's state), date,
# machine.txt (CPU, ISA flags, the ISA nmt, torch and CTranslate2 use), versions.txt,
# settings.md, raw/ (every measurement's JSON and log, the translations, the sentences, the
# configurations), results.csv and results.md (the tables, with nmt / transformers and
# nmt / CTranslate2 per setting). Figures mean something only on an otherwise idle machine.
# Needs: nmt built (scripts/build.sh, or NMT=path), .venv/hf and .venv/ct2
# (scripts/peers/setup-venv.sh hf ct2; .venv/hf pins accelerate for Seq2SeqTrainer).
# Exit status: 0 record written, 1 something needed is missing or a step before the measurements
# failed, 2 usage. A measurement that fails is recorded with its error and the others go on.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
command_line="${NMT:+NMT=$NMT }scripts/peers/bench-marian.sh $*"
nmt=$(realpath -m "${NMT:-build/src/nmt}")  # absolute: nmt import runs in the work directory
corpus=data/tatoeba-en-es/eng-spa.tsv.gz
size=full
out=""
work=""
sentences=""
rounds=""
steps=""
warmup=""
threads=2
ct2_isas=own
layouts=""
max_len=64
batch_size=32
do_translate=1
do_train=1

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
fail() { echo "bench-marian: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) size=quick; shift ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --n) sentences=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --ct2-isa) ct2_isas=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --skip-translate) do_translate=0; shift ;;
    --skip-train) do_train=0; shift ;;
    -h|--help) usage 0 ;;
    *) echo "bench-marian: unknown option $1" >&2; usage ;;
  esac
done
if [[ $size == quick ]]; then
  : "${sentences:=100}" "${rounds:=1}" "${steps:=2}" "${warmup:=1}"
  if [[ $(realpath -m "${out:-/tmp}") == "$repo"/data/benchmarks* ]]; then
    echo "bench-marian: --quick writes no record into data/benchmarks/" >&2
    exit 2
  fi
  [[ -n $out ]] || out=$(mktemp -d /tmp/bench-marian-quick.XXXXXX)
else
  : "${sentences:=2000}" "${rounds:=2}" "${steps:=20}" "${warmup:=3}"
  [[ -n $out ]] || out=data/benchmarks/marian-$(date -u +%F)
fi
for number in "$sentences" "$rounds" "$steps" "$warmup" "$threads"; do
  [[ $number =~ ^[1-9][0-9]*$ ]] || { echo "bench-marian: not a positive whole number: $number" >&2; exit 2; }
done
work=${work:-runs/bench-marian-$size}
(( threads == 1 )) && : "${layouts:=1x1}" || : "${layouts:=1x$threads ${threads}x1}"
for isa in $ct2_isas; do
  [[ $isa =~ ^(own|GENERIC|AVX|AVX2|AVX512|NEON)$ ]] ||
    { echo "bench-marian: --ct2-isa takes own, GENERIC, AVX, AVX2, AVX512 or NEON: $isa" >&2; exit 2; }
done
for layout in $layouts; do
  if [[ ! $layout =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]] ||
     (( BASH_REMATCH[1] * BASH_REMATCH[2] != threads )); then
    echo "bench-marian: a layout is TxD with T * D = $threads threads: $layout" >&2
    exit 2
  fi
done

# --- What is needed: nmt, the two environments, the corpus ---
"$nmt" --version > /dev/null 2>&1 ||
  fail "no working nmt at $nmt: build it (scripts/build.sh) or set NMT"
hf=$repo/.venv/hf/bin/python
ct2=$repo/.venv/ct2/bin/python
"$hf" -c 'import transformers, torch, sentencepiece' 2> /dev/null ||
  fail ".venv/hf is missing or incomplete: make it with scripts/peers/setup-venv.sh hf (which needs .venv/torch2-2.11.0: scripts/test-torch2.sh --build-only)"
"$ct2" -c 'import ctranslate2, sentencepiece' 2> /dev/null ||
  fail ".venv/ct2 is missing or incomplete: make it with scripts/peers/setup-venv.sh ct2"
[[ -f $corpus ]] || fail "$corpus is missing (it is part of the repository)"
# The helpers import each other: no __pycache__ beside them in the work tree.
export PYTHONDONTWRITEBYTECODE=1
helper() { "$hf" scripts/peers/bench_marian.py "$@"; }
log() { echo "== bench-marian $(date -u +%T): $*" >&2; }
mkdir -p "$out/raw" "$work"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)
rm -f "$out"/raw/*

# --- The model, its nmt run and its CTranslate2 conversion (each redone when the model is newer) ---
model=$work/model
if [[ ! -f $model/bench-model.json ]]; then
  log "making the $size model in $model (SentencePiece training and </s> calibration: minutes)"
  helper make-model --tsv "$corpus" --size "$size" --out "$model" --threads "$threads" ||
    fail "making the model failed"
fi
run=$work/run
if [[ ! -f $run/config.json || $model/bench-model.json -nt $run/config.json ]]; then
  rm -rf "$run"
  # From the work directory: nmt import points runs/latest (of the current directory) at the run.
  (cd "$work" && "$nmt" -q import --format marian "$model" --out "$run") || fail "nmt import failed"
fi
ct2_model=$work/ct2
if [[ ! -f $ct2_model/model.bin || $model/bench-model.json -nt $ct2_model/model.bin ]]; then
  ct2_site=$("$ct2" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  helper ct2-convert --model "$model" --out "$ct2_model" --ct2-site "$ct2_site" ||
    fail "CTranslate2's converter failed on $model"
fi

# --- The record's header ---
echo "$command_line" > "$out/command.txt"
date -u '+%Y-%m-%d %H:%M UTC' > "$out/date"
{
  git rev-parse HEAD
  changed=$(git status --porcelain --untracked-files=no | wc -l)
  echo "work tree: $changed tracked files differ from HEAD (nmt was built from that tree)"
} > "$out/commit"
{
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket)'
  for flag in avx2 avx512f avx512_vnni avx512_bf16 amx_int8 amx_bf16; do
    grep -qw "$flag" /proc/cpuinfo && echo "cpu flag: $flag" || echo "cpu flag: no $flag"
  done
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  # Tier caps given to the whole measurement (nmt --version below shows NMT_CPU_ISA's effect).
  for variable in NMT_CPU_ISA ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA OPENBLAS_CORETYPE; do
    echo "environment: $variable=${!variable-(unset)}"
  done
  echo "--- nmt --version"
  "$nmt" --version
  echo "--- torch (.venv/hf)"
  "$hf" -c 'import torch; print("CPU capability:", torch.backends.cpu.get_cpu_capability()); print("mkldnn:", torch.backends.mkldnn.is_available())'
  for isa in $ct2_isas; do
    echo "--- CTranslate2 (.venv/ct2), CT2_VERBOSE=1 while loading the model, ISA: $isa"
    isa_env=()
    [[ $isa == own ]] || isa_env=(CT2_FORCE_CPU_ISA="$isa")
    env CT2_VERBOSE=1 "${isa_env[@]}" "$ct2" -c 'import ctranslate2, sys
print("supported compute types:", sorted(ctranslate2.get_supported_compute_types("cpu")))
ctranslate2.Translator(sys.argv[1], device="cpu", compute_type="int8", intra_threads=1)' \
      "$ct2_model" 2>&1 | sed 's/^\[[^]]*\] \[[^]]*\] //'
  done
} > "$out/machine.txt"
{
  echo "nmt: $("$nmt" --version | head -n 1) ($("$nmt" --version | sed -n 2p))"
  "$hf" -c 'import sys, torch, transformers, sentencepiece
print("transformers:", transformers.__version__); print("torch:", torch.__version__)
print("sentencepiece (.venv/hf):", sentencepiece.__version__); print("python:", sys.version.split()[0])'
  if accelerate=$("$hf" -c 'import accelerate
print(accelerate.__version__)' 2> /dev/null); then
    echo "accelerate: $accelerate"
  fi
  "$ct2" -c 'import ctranslate2; print("ctranslate2:", ctranslate2.__version__)'
} > "$out/versions.txt"
cp "$model/bench-model.json" "$out/raw/model.json"
"$hf" - "$model/bench-model.json" "$out/settings.md" "$sentences" "$rounds" "$threads" "$layouts" "$max_len" \
  "$steps" "$warmup" "$ct2_isas" <<'PY'
import json, sys
info_path, out, sentences, rounds, threads, layouts, max_len, steps, warmup, isas = sys.argv[1:]
info = json.load(open(info_path))
shape = info["shape"]
lines = [
    f"Model: random MarianMTModel, d_model {shape['d_model']}, {shape['layers']}+{shape['layers']} "
    f"layers, {shape['heads']} heads, FFN {shape['ffn']}, swish, {info['vocab_entries']:,} vocabulary "
    f"entries ({info['real_entries']:,} real pieces and specials; the others never generated), "
    f"{info['parameters']:,} parameters; </s> bias calibrated on {info['calibration']}.",
    f"Translation: {sentences} Tatoeba sentences (raw/sources.txt), batches of 32 sorted by source "
    f"length, at most {max_len} output tokens before </s>, {threads} threads per system, laid out "
    f"as translators × threads of each ({layouts.replace('x', '×')}; transformers only "
    f"1×{threads}), CTranslate2 with the ISA {' and with '.join(isas.replace('own', 'of its own choice').split())}, "
    "timed inside each process after a 16-sentence warm-up (loading excluded); "
    f"best of {rounds} round(s) and the layouts, the systems alternating within each round. Beam "
    "search stops as each system does "
    "by default: transformers when no open beam can beat the 4 ended ones (nmt's beam_stop best), "
    "CTranslate2 when 4 have ended (nmt's beam_stop first); nmt is measured both ways.",
    f"Fine-tuning: 32 pairs per step, {warmup} untimed then {steps} timed steps, best of {rounds} "
    "round(s); target tokens are the target pieces and </s> of each pair, padding excluded, on "
    "both sides.",
]
open(out, "w").write("\n\n".join(lines) + "\n")
PY

# --- The sentences and the training pairs ---
helper sample --tsv "$corpus" --n "$sentences" --seed 7 --sources "$out/raw/sources.txt" \
  --pairs "$work/translate.tsv"
train_pairs=$(( (warmup + steps) * batch_size * 5 / 4 ))
helper sample --tsv "$corpus" --n "$train_pairs" --seed 11 --sources /dev/null \
  --pairs "$out/raw/train.tsv"
# nmt bench translate reads the test split of a run: a run of its own whose test.tsv holds the
# sentences, the imported run's files linked.
bench_run=$work/bench-run
rm -rf "$bench_run"
mkdir -p "$bench_run"
ln -s "$run"/* "$bench_run/"
cp "$work/translate.tsv" "$bench_run/test.tsv"
cat > "$out/raw/nmt-finetune.json" <<JSON
{
  "data": {"path": "$out/raw/train.tsv"},
  "train": {"init_from": "$run", "batch_size": $batch_size, "max_tokens": 0, "lr": 0.0001,
            "schedule": "constant", "label_smoothing": 0.1, "clip_norm": 1.0,
            "weight_decay": 0.0, "seed": 23}
}
JSON

# measure NAME COMMAND...: runs one measurement with its log in raw/NAME.log; the command writes
# raw/NAME.json, or on failure that file gets the error (the log's last line).
measure() {
  local name=$1; shift
  log "$name"
  # The load average beside each figure: other work on the machine shows there.
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/raw/$name.log"
  if ! "$@" >> "$out/raw/$name.log" 2>&1 || [[ ! -s $out/raw/$name.json ]]; then
    log "$name failed: $(tail -n 1 "$out/raw/$name.log")"
    "$hf" -c 'import json, sys; json.dump({"error": sys.argv[1]}, open(sys.argv[2], "w"))' \
      "$(tail -n 1 "$out/raw/$name.log" | cut -c1-300)" "$out/raw/$name.json"
  fi
}
nmt_translate() {  # ROUND DECODING PRECISION LAYOUT
  local name=translate-nmt-$2-$3 flags
  flags=(--model "$bench_run" --precision "$3" --threads "$threads" --translators "${4%x*}"
         --decode-threads "${4#*x}" --batch-size "$batch_size" --max-len "$max_len")
  case $2 in
    greedy) flags+=(--strategy greedy) ;;
    beam4-*) flags+=(--strategy beam --beam-size 4 --beam-stop "${2#beam4-}") ;;
  esac
  measure "$name-$4.r$1" sh -c '"$@" > "$0"' "$out/raw/$name-$4.r$1.json" \
    "$nmt" -q bench translate "${flags[@]}" --n "$sentences" --json
  if [[ $1 == 1 && $4 == "${layouts%% *}" ]]; then
    "$nmt" -q translate "${flags[@]}" < "$out/raw/sources.txt" > "$out/raw/$name.hyp.txt" ||
      log "$name: nmt translate failed"
  fi
}
peer_translate() {  # SYSTEM ROUND DECODING PRECISION LAYOUT [CT2_ISA]
  local system=$1 name=translate-$1-$3-$4 python=$hf command=hf-translate precision=$4
  local strategy=greedy isa=() hyp=/dev/null setting=$5
  # The translations of round 1, from the first layout and ISA (transformers has only one).
  [[ $2 != 1 || ($5 != "${layouts%% *}" && $system != transformers) ||
     ${6:-own} != "${ct2_isas%% *}" ]] || hyp=$out/raw/$name.hyp.txt
  [[ $3 == greedy ]] || strategy=beam
  if [[ $system == ctranslate2 ]]; then
    python=$ct2 command=ct2-translate
    if [[ $6 != own ]]; then
      isa=(CT2_FORCE_CPU_ISA="$6")
      setting+=-${6,,}
    fi
    case $4 in fp32) precision=float32 ;; bf16) precision=bfloat16 ;; esac
  fi
  local layout=(--threads "${5#*x}")
  [[ $system != ctranslate2 ]] || layout+=(--translators "${5%x*}")
  measure "$name-$setting.r$2" env "${isa[@]}" "$python" scripts/peers/bench_marian.py "$command" \
    --model "$([[ $system == ctranslate2 ]] && echo "$ct2_model" || echo "$model")" \
    --src "$out/raw/sources.txt" --strategy "$strategy" --beam-size 4 --precision "$precision" \
    "${layout[@]}" --batch-size "$batch_size" --max-len "$max_len" \
    --out "$hyp" --json "$out/raw/$name-$setting.r$2.json"
}

if (( do_translate )); then
  for round in $(seq "$rounds"); do
    for precision in fp32 bf16 int8; do
      for layout in $layouts; do
        # transformers has one layout, generate() on torch's threads, measured beside the first.
        hf_layout=$([[ $layout == "${layouts%% *}" && $precision != int8 ]] && echo yes || echo no)
        nmt_translate "$round" greedy "$precision" "$layout"
        [[ $hf_layout == no ]] ||
          peer_translate transformers "$round" greedy "$precision" "1x$threads"
        for isa in $ct2_isas; do
          peer_translate ctranslate2 "$round" greedy "$precision" "$layout" "$isa"
        done
        nmt_translate "$round" beam4-best "$precision" "$layout"
        [[ $hf_layout == no ]] ||
          peer_translate transformers "$round" beam4-best "$precision" "1x$threads"
        nmt_translate "$round" beam4-first "$precision" "$layout"
        for isa in $ct2_isas; do
          peer_translate ctranslate2 "$round" beam4-first "$precision" "$layout" "$isa"
        done
      done
    done
  done
fi

if (( do_train )); then
  for round in $(seq "$rounds"); do
    for precision in fp32 bf16; do
      name=train-nmt-$precision.r$round
      measure "$name" sh -c '"$@" > "$0"' "$out/raw/$name.json" "$nmt" bench train \
        --config "$out/raw/nmt-finetune.json" --data "$out/raw/train.tsv" --steps "$steps" \
        --warmup "$warmup" --threads "$threads" --precision "$precision" \
        --batch-size "$batch_size" --max-tokens 0 --device cpu --json
      for trainer in seq2seq loop; do
        name=train-${trainer/seq2seq/seq2seqtrainer}-$precision.r$round
        measure "$name" "$hf" scripts/peers/bench_marian.py \
          hf-train --model "$model" --tsv "$out/raw/train.tsv" --trainer "$trainer" \
          --precision "$precision" --steps "$steps" --warmup "$warmup" \
          --batch-size "$batch_size" --threads "$threads" --json "$out/raw/$name.json"
      done
    done
  done
fi

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
helper table "$out" > /dev/null
log "record in $out (results.md, results.csv)"
cat "$out/results.md"
