#!/usr/bin/env bash
# A file translated from process start to exit, by nmt and by CTranslate2, alternating, and where
# nmt's time goes: what a user who translates a file, or a script that calls nmt once per
# document, waits for. A record of it:
#
#   scripts/peers/bench-whole-process.sh [--model RUN] [--n N] [--tier avx2|avx_vnni]
#                                        [--strategies "greedy beam"] [--rounds 3] [--out DIR]
#
# RUN (default runs/latest) is exported with `nmt export --format ctranslate2`; the first N
# (default 2000) sentences of its test split are translated, greedily and with beam 5, in each of
# --rounds rounds, one engine after the other:
#   nmt           `nmt translate --model RUN < sources > hypotheses` with NMT_FLAGS (default none:
#                 precision auto and one translator per core, its fastest setting)
#   CTranslate2   a Python process that imports ctranslate2 and sentencepiece, loads the model,
#                 tokenises, translates, detokenises and writes the file (bench_translate.py ct2
#                 --whole-process) with CT2_FLAGS (default --compute-type int8 --intra-threads 1
#                 --inter-threads 2, its fastest in records peers-*)
# Both stop a translation at 256 tokens. Each round also times nmt's parts: `nmt --version`
# (process start: loading LibTorch and its libraries), `nmt translate` of no input (start and
# model load) and `nmt bench translate` of the same sentences (decode alone, timed inside), so the
# rest of the whole (tokenisation, batching, output, exit) shows as the remainder.
# --tier holds both engines to a tier as in bench-translate.sh (same variables).
# The record, DIR (default data/benchmarks/whole-process-<UTC date>[-TIER]): command.txt,
# machine.txt, raw/ (every run's seconds, the hypotheses of round 1, the references), table.md
# (median round per engine and decoding, the ratio nmt / CTranslate2 in sentences/s, BLEU) and
# results.json. Figures mean something only on an otherwise idle machine.
# Environment: NMT (default build/src/nmt), NMT_FLAGS, CT2_FLAGS.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
nmt=${NMT:-$root/build/src/nmt}
# shellcheck source=translate-common.sh
source "$root/scripts/peers/translate-common.sh"
model=runs/latest
sentences=2000
out=""
strategies="greedy beam"
tier=""
rounds=3
read -r -a nmt_flags <<< "${NMT_FLAGS:-}"
read -r -a ct2_flags <<< "${CT2_FLAGS:---compute-type int8 --intra-threads 1 --inter-threads 2}"
command_line="NMT=$nmt NMT_FLAGS=\"${nmt_flags[*]}\" CT2_FLAGS=\"${ct2_flags[*]}\" $0 $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --n) sentences=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --tier) tier=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "bench-whole-process: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -f $model/config.json ]] || { echo "bench-whole-process: $model is not a run" >&2; exit 2; }
[[ -x $nmt ]] || { echo "bench-whole-process: no nmt binary at $nmt (build first or set NMT)" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-whole-process: --rounds: expected a positive whole number, got '$rounds'" >&2; exit 2; }
hold_to_tier bench-whole-process "$tier"
out=${out:-$root/data/benchmarks/whole-process-$(date -u +%Y-%m-%d)${tier:+-$tier}}
python=$("$root/scripts/peers/setup-venv.sh" ct2)
helper=$root/scripts/peers/bench_translate.py

mkdir -p "$out/raw"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run=$scratch/run
make_test_run bench-whole-process "$model" "$sentences" "$run" "$out/raw"
export_ctranslate2 "$run" "$scratch/ct2" "$python"

echo "$command_line" > "$out/command.txt"
{
  (cd "$root" && scripts/machine-header.sh)
  echo "tier: ${tier:-none} (NMT_CPU_ISA=${NMT_CPU_ISA:-} CT2_FORCE_CPU_ISA=${CT2_FORCE_CPU_ISA:-}" \
    "MKL_ENABLE_INSTRUCTIONS=${MKL_ENABLE_INSTRUCTIONS:-} ONEDNN_MAX_CPU_ISA=${ONEDNN_MAX_CPU_ISA:-})"
  echo "model: $(cd "$model" && pwd -P) ($sentences sentences of its test split)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$nmt" --version
  "$python" -c 'import ctranslate2, sentencepiece
print("ctranslate2:", ctranslate2.__version__, "sentencepiece:", sentencepiece.__version__)'
} > "$out/machine.txt"

# Seconds a command ($2...) takes from start to exit (bash's clock around it); its output to $1.
seconds_of() {
  local output=$1
  shift
  local start=$EPOCHREALTIME
  "$@" > "$output"
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.4f}')" "$start" "$EPOCHREALTIME"
}

decode_flags() {
  local strategy=$1
  echo "--strategy $strategy --beam-size 5 --max-len 256"
}

for round in $(seq 1 "$rounds"); do
  for strategy in $strategies; do
    read -r -a flags <<< "$(decode_flags "$strategy")"
    echo "bench-whole-process: round $round, $strategy" >&2
    start_up=$(seconds_of /dev/null "$nmt" --version)
    loaded=$(seconds_of /dev/null "$nmt" -q translate --model "$run" "${flags[@]}" "${nmt_flags[@]}" < /dev/null)
    whole=$(seconds_of "$scratch/nmt.hyp" "$nmt" -q translate --model "$run" "${flags[@]}" "${nmt_flags[@]}" \
      < "$out/raw/sources.txt")
    "$nmt" -q bench translate --model "$run" "${flags[@]}" "${nmt_flags[@]}" --n "$sentences" --json \
      > "$scratch/bench.json"
    ct2_whole=$(seconds_of /dev/null "$python" "$helper" ct2 --model "$scratch/ct2" \
      --src "$out/raw/sources.txt" --tokenizer "$tokenizer" --strategy "$strategy" --beam-size 5 \
      --length-penalty "$length_penalty" "${ct2_flags[@]}" --whole-process \
      --out "$scratch/ct2.hyp" --json "$scratch/ct2.json")
    if [[ $round -eq 1 ]]; then
      cp "$scratch/nmt.hyp" "$out/raw/nmt-$strategy.hyp.txt"
      cp "$scratch/ct2.hyp" "$out/raw/ct2-$strategy.hyp.txt"
    fi
    python3 - "$out/raw/$strategy.round$round.json" "$start_up" "$loaded" "$whole" \
      "$scratch/bench.json" "$ct2_whole" "$scratch/ct2.json" <<'PY'
import json, sys
out, start_up, loaded, whole, bench, ct2_whole, ct2 = sys.argv[1:]
decode = json.load(open(bench))
ct2_result = json.load(open(ct2))
json.dump({"nmt": {"version_s": float(start_up), "no_input_s": float(loaded),
                   "whole_s": float(whole), "decode_s": decode["seconds"],
                   "precision": decode.get("precision"), "sentences": decode["sentences"]},
           "ctranslate2": {"whole_s": float(ct2_whole), "inside_s": ct2_result["seconds"],
                           "precision": ct2_result["precision"],
                           "threads": ct2_result["threads"]}},
          open(out, "w"), indent=2)
PY
  done
done

"$python" - "$out" "$rounds" "$sentences" $strategies <<'PY'
import json, statistics, sys
import sacrebleu
out, rounds, sentences, strategies = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
references = open(f"{out}/raw/references.txt", encoding="utf-8").read().splitlines()
def bleu(name):
    hypotheses = open(f"{out}/raw/{name}.hyp.txt", encoding="utf-8").read().splitlines()
    return sacrebleu.corpus_bleu(hypotheses, [references]).score
lines = ["| decoding | nmt whole (s) | CTranslate2 whole (s) | nmt / CTranslate2 (sentences/s) "
         "| nmt: start-up | model load | decode | rest | CTranslate2 inside its process "
         "| BLEU nmt / CTranslate2 | ratio of each round |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
results = []
for strategy in strategies:
    runs = [json.load(open(f"{out}/raw/{strategy}.round{r}.json")) for r in range(1, rounds + 1)]
    ratios = [run["ctranslate2"]["whole_s"] / run["nmt"]["whole_s"] for run in runs]
    median = sorted(runs, key=lambda run: run["nmt"]["whole_s"])[(rounds - 1) // 2]
    nmt, ct2 = median["nmt"], median["ctranslate2"]
    ct2_median = statistics.median(run["ctranslate2"]["whole_s"] for run in runs)
    nmt_median = nmt["whole_s"]
    load = nmt["no_input_s"] - nmt["version_s"]
    rest = nmt["whole_s"] - nmt["no_input_s"] - nmt["decode_s"]
    decoding = "greedy" if strategy == "greedy" else "beam 5"
    row = {"strategy": strategy, "nmt_whole_s": nmt_median, "ct2_whole_s": ct2_median,
           "ratio": ct2_median / nmt_median, "ratios": ratios, "nmt_parts": nmt,
           "bleu_nmt": bleu(f"nmt-{strategy}"), "bleu_ct2": bleu(f"ct2-{strategy}")}
    results.append(row)
    lines.append(
        f"| {decoding} | {nmt_median:.2f} | {ct2_median:.2f} | {row['ratio']:.2f}x "
        f"| {nmt['version_s']:.2f} | {load:.2f} | {nmt['decode_s']:.2f} | {rest:.2f} "
        f"| {ct2['inside_s']:.2f} | {row['bleu_nmt']:.2f} / {row['bleu_ct2']:.2f} "
        f"| {', '.join(f'{r:.2f}' for r in ratios)} |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
json.dump(results, open(f"{out}/results.json", "w"), indent=2)
print("\n".join(lines))
PY
echo "bench-whole-process: record in $out" >&2
