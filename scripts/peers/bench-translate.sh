#!/usr/bin/env bash
# nmt against CTranslate2 translating the same sentences with the same model, one after the other
# in one run, and a record of it:
#
#   scripts/peers/bench-translate.sh [--model RUN] [--n N] [--out DIR] [--threads "1 2"]
#                                    [--strategies "greedy beam"] [--tier avx2] [--rounds 3]
#
# RUN (default runs/latest) is exported with `nmt export --format ctranslate2`; the first N
# (default 2000) sentences of its test split are translated greedily and with beam 5 by
#   nmt            fp32, bf16, int8 and int8w7 (7-bit weights), with 1 and 2 threads (nmt bench
#                  translate for speed and memory, nmt eval for the translations)
#   CTranslate2    float32 and int8, intra_threads 1 and 2, and two translators side by side with
#                  one thread each (inter_threads 2) (scripts/peers/bench_translate.py)
# Every setting is timed in each of --rounds rounds (default 3), the rounds one after the other, so
# that both engines meet the same drift of a shared machine (this VM's speed wandered by up to 13%
# within an hour); the table gives each setting's median round, raw/ every round. Records made
# before --rounds existed (up to peers-2026-11-27-avx2-int8) timed each setting once.
# Reported per setting: sentences/s, target tokens/s, peak RSS, and sacreBLEU (from .venv/ct2) of
# the detokenised output against the split's references; a row whose BLEU is more than 0.3 from
# nmt's fp32 BLEU with the same decoding is marked void. Each engine is timed after a warm-up and
# without loading the model; peak RSS is that of the process (nmt bench translate, which also
# measures a 1024 x 1024 GEMM afterwards, about 12 MiB; or CTranslate2's Python process). Both
# stop a translation at 256 tokens (CTranslate2's default; nmt's own default is 2 x source + 10).
#
# --tier avx2 holds both engines to the AVX2 tier, as on a CPU without AVX-512: NMT_CPU_ISA=avx2
# for nmt (its kernels, defaults and libraries), CT2_FORCE_CPU_ISA=AVX2 for CTranslate2's own
# kernels, MKL_ENABLE_INSTRUCTIONS=AVX2 and ONEDNN_MAX_CPU_ISA=AVX2 for the libraries under it.
# --tier avx_vnni holds them to AVX2 with AVX-VNNI, as on Intel's client CPUs since Alder Lake or
# AMD's since Zen 5: NMT_CPU_ISA=avx_vnni (nmt's AVX-VNNI int8 kernel), CTranslate2's own kernels
# at AVX2 (it has no level between AVX2 and AVX-512) and its libraries at their AVX-VNNI levels
# (MKL_ENABLE_INSTRUCTIONS=AVX2_E1, ONEDNN_MAX_CPU_ISA=AVX2_VNNI); nmt's int8 and int8w7 are also
# timed at NMT_CPU_ISA=avx2 in each round (rows named ...-avx2), the kernels that CPU would run
# without the AVX-VNNI one.
# The record, DIR (default data/benchmarks/peers-<UTC date>[-TIER]): command.txt, machine.txt (CPU model,
# cores, date, versions), raw/ (every setting's JSON and hypotheses, the references), table.md and
# results.json. Figures mean something only on an otherwise idle machine.
# Environment: NMT (default build/src/nmt).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
nmt=${NMT:-$root/build/src/nmt}
# shellcheck source=translate-common.sh
source "$root/scripts/peers/translate-common.sh"
model=runs/latest
sentences=2000
out=""
threads_list="1 2"
strategies="greedy beam"
tier=""
rounds=3
command_line="${NMT:+NMT=$NMT }$0 $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --n) sentences=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --tier) tier=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "bench-translate: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
if [[ ! -f $model/config.json ]]; then
  echo "bench-translate: $model is not a run" >&2
  exit 2
fi
if [[ ! -x $nmt ]]; then
  echo "bench-translate: no nmt binary at $nmt (build first or set NMT)" >&2
  exit 2
fi
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
  echo "bench-translate: --rounds: expected a positive whole number, got '$rounds'" >&2
  exit 2
fi
hold_to_tier bench-translate "$tier"
out=${out:-$root/data/benchmarks/peers-$(date -u +%Y-%m-%d)${tier:+-$tier}}
python=$("$root/scripts/peers/setup-venv.sh" ct2)
helper=$root/scripts/peers/bench_translate.py

mkdir -p "$out/raw"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run=$scratch/run
make_test_run bench-translate "$model" "$sentences" "$run" "$out/raw"

export_ctranslate2 "$run" "$scratch/ct2" "$python"

{
  echo "$command_line"
  echo "model: $(cd "$model" && pwd -P) ($sentences sentences of its test split)"
  echo "rounds: $rounds"
} > "$out/command.txt"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket)'
  for flag in avx2 avx512f avx512_vnni avx512_bf16 amx_int8 avx_vnni; do
    grep -qw "$flag" /proc/cpuinfo && echo "cpu flag: $flag" || echo "cpu flag: no $flag"
  done
  if [[ -n $tier ]]; then
    echo "tier: $tier (NMT_CPU_ISA=$NMT_CPU_ISA CT2_FORCE_CPU_ISA=$CT2_FORCE_CPU_ISA" \
      "MKL_ENABLE_INSTRUCTIONS=$MKL_ENABLE_INSTRUCTIONS ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA)"
  else
    echo "tier: the CPU's own (no cap)"
  fi
  echo "commit: $(git -C "$root" rev-parse HEAD)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "nmt: $("$nmt" --version)"
  "$python" -c 'import ctranslate2, sacrebleu, sentencepiece, sys
for module in (ctranslate2, sacrebleu, sentencepiece):
    print(f"{module.__name__}: {module.__version__}")
print("python:", sys.version.split()[0])'
} > "$out/machine.txt"

# nmt: speed and memory from `nmt bench translate`, the translations from `nmt eval` (in the first
# round); a setting this machine cannot run (bf16 below AVX-512) is recorded with nmt's message.
run_nmt() {
  local strategy=$1 precision=$2 threads=$3 round=$4 suffix=${5:-}
  local name=nmt-$strategy-$precision-t$threads$suffix
  local flags=(--model "$run" --strategy "$strategy" --beam-size 5 --precision "$precision"
               --threads "$threads" --device cpu --max-len 256)
  echo "bench-translate: $name (round $round)" >&2
  local error=""
  if "$nmt" -q bench translate "${flags[@]}" --n "$sentences" --json > "$scratch/bench.json" \
    2> "$scratch/error.txt"; then
    if [[ $round -eq 1 ]]; then
      "$nmt" -q eval "${flags[@]}" --split test --out "$out/raw/$name.hyp.txt" --json > /dev/null
    fi
  else
    error=$(tail -n 1 "$scratch/error.txt")
  fi
  "$python" - "$scratch/bench.json" "$out/raw/$name.round$round.json" "$strategy" \
    "$precision${suffix:+ at NMT_CPU_ISA=$NMT_CPU_ISA}" "$threads" \
    "$("$nmt" --version | head -n 1)" "$error" <<'PY'
import json, sys
bench, out, strategy, precision, threads, engine, error = sys.argv[1:]
row = {"engine": engine, "strategy": strategy, "beam_size": 5, "precision": precision,
       "threads": threads}
if error:
    row["error"] = error
else:
    result = json.load(open(bench))
    row.update({key: result[key] for key in ("sentences", "seconds", "sentences_per_s",
                                             "output_tokens_per_s", "peak_rss_mib")})
json.dump(row, open(out, "w"), indent=2)
PY
}

run_ct2() {
  local strategy=$1 compute_type=$2 intra=$3 inter=$4 round=$5
  local name=ct2-$strategy-$compute_type-intra$intra-inter$inter
  echo "bench-translate: $name (round $round)" >&2
  "$python" "$helper" ct2 --model "$scratch/ct2" --src "$out/raw/sources.txt" \
    --tokenizer "$tokenizer" --strategy "$strategy" --beam-size 5 \
    --length-penalty "$length_penalty" --compute-type "$compute_type" --intra-threads "$intra" \
    --inter-threads "$inter" --out "$out/raw/$name.hyp.txt" --json "$out/raw/$name.round$round.json"
}

for round in $(seq 1 "$rounds"); do
  for strategy in $strategies; do
    for threads in $threads_list; do
      for precision in fp32 bf16 int8 int8w7; do run_nmt "$strategy" "$precision" "$threads" "$round"; done
      if [[ $tier == avx_vnni ]]; then
        for precision in int8 int8w7; do
          NMT_CPU_ISA=avx2 run_nmt "$strategy" "$precision" "$threads" "$round" -avx2
        done
      fi
      for compute_type in float32 int8; do
        run_ct2 "$strategy" "$compute_type" "$threads" 1 "$round"
      done
    done
    for compute_type in float32 int8; do run_ct2 "$strategy" "$compute_type" 1 2 "$round"; done
  done
done
"$python" "$helper" table "$out"
echo "bench-translate: record in $out" >&2
