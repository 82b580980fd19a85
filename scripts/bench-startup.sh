#!/usr/bin/env bash
# Wall time of `nmt translate "one sentence"`, start to exit, over repeated runs (hyperfine), and of
# its parts: the libraries alone (a program that links what nmt-torch links and runs nothing:
# loading LibTorch and its dependencies), the process start alone (`nmt --version`), the same
# translation at capped tiers (NMT_CPU_ISA) and with another nmt binary for a before/after
# (build/src/nmt-torch, the program without its launcher, shows what the launcher saves).
#
#   scripts/bench-startup.sh --model RUN [--baseline OTHER_NMT] [--tiers "avx2 ..."] [--runs N]
#                            [--out DIR]
#
# --tiers: the translation again under NMT_CPU_ISA=TIER for each, by nmt and by the baseline.
# With --baseline, the one-sentence translation also runs in --runs rounds alternating the two
# binaries (who goes first alternates too), for a ratio that a shared machine's drift does not
# bias as it does hyperfine's one-after-the-other: alternating.tsv (seconds of each run) and
# alternating.md (medians, and the median of the rounds' differences).
# Writes DIR (default data/benchmarks/startup-<UTC date>): command.txt, machine.txt, hyperfine's
# JSON and markdown. Figures mean something only on an otherwise idle machine.
# Environment: NMT (default build/src/nmt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nmt=${NMT:-$root/build/src/nmt}
model=""
baseline=""
tiers=""
runs=20
out=""
command_line="$0 $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --tiers) tiers=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "bench-startup: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -n $model && -f $model/config.json ]] || { echo "bench-startup: --model RUN is required (a trained run)" >&2; exit 2; }
command -v hyperfine > /dev/null || { echo "bench-startup: hyperfine is missing (Debian: apt install hyperfine)" >&2; exit 2; }
out=${out:-$root/data/benchmarks/startup-$(date -u +%Y-%m-%d)}
mkdir -p "$out"
echo "$command_line" > "$out/command.txt"
{
  (cd "$root" && scripts/machine-header.sh)
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "nmt: $("$nmt" --version | head -2 | tr '\n' ' ')"
  [[ -n $baseline ]] && echo "baseline: $baseline ($("$baseline" --version | head -2 | tr '\n' ' '))"
  echo "model: $(cd "$model" && pwd -P)"
} > "$out/machine.txt"

# The libraries alone: an empty program that needs nmt-torch's libraries, found where it finds
# them. What `nmt --version` takes beyond it is nmt's own start.
nmt_torch=$(dirname "$nmt")/nmt-torch
libraries_alone=$(mktemp -d)/libraries-alone
trap 'rm -rf "$(dirname "$libraries_alone")"' EXIT
runpath=$(readelf -d "$nmt_torch" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
mapfile -t needed < <(readelf -d "$nmt_torch" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/-l:\1/p')
echo 'int main(void) { return 0; }' |
  ${CC:-cc} -x c - -o "$libraries_alone" -Wl,--no-as-needed ${runpath:+-Wl,-rpath,"$runpath"} \
    $(tr ':' '\n' <<< "$runpath" | sed '/^$/d; s/^/-L/') "${needed[@]}"
echo "libraries alone: ${#needed[@]} libraries needed, $(ldd "$libraries_alone" | wc -l) loaded" >> "$out/machine.txt"

translate="-q translate --model '$model' 'I am hungry.'"
commands=(-n "libraries alone" "'$libraries_alone'" -n "nmt --version" "'$nmt' --version" -n "nmt translate, one sentence" "'$nmt' $translate")
if [[ -n $baseline ]]; then
  commands+=(-n "baseline translate, one sentence" "'$baseline' $translate")
fi
for tier in $tiers; do
  commands+=(-n "nmt translate, one sentence, NMT_CPU_ISA=$tier" "env NMT_CPU_ISA=$tier '$nmt' $translate")
  if [[ -n $baseline ]]; then
    commands+=(-n "baseline translate, one sentence, NMT_CPU_ISA=$tier"
               "env NMT_CPU_ISA=$tier '$baseline' $translate")
  fi
done
hyperfine --warmup 3 --runs "$runs" --export-json "$out/hyperfine.json" \
  --export-markdown "$out/hyperfine.md" "${commands[@]}"

# Seconds one run of a binary's one-sentence translation takes.
time_translation() {
  local start end
  start=$(date +%s%N)
  "$1" -q translate --model "$model" 'I am hungry.' > /dev/null
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.4f\n", ns / 1e9 }'
}
if [[ -n $baseline ]]; then
  echo -e "round\tbaseline\tnmt" > "$out/alternating.tsv"
  for ((round = 1; round <= runs; ++round)); do
    if ((round % 2)); then
      first=$(time_translation "$baseline"); second=$(time_translation "$nmt")
      echo -e "$round\t$first\t$second" >> "$out/alternating.tsv"
    else
      first=$(time_translation "$nmt"); second=$(time_translation "$baseline")
      echo -e "$round\t$second\t$first" >> "$out/alternating.tsv"
    fi
  done
  python3 - "$out/alternating.tsv" > "$out/alternating.md" << 'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n")[1:] if line]
baseline = [float(row[1]) for row in rows]
nmt = [float(row[2]) for row in rows]
print("| one sentence, %d rounds alternating | median (s) | min (s) |" % len(rows))
print("| --- | ---: | ---: |")
print("| baseline | %.3f | %.3f |" % (statistics.median(baseline), min(baseline)))
print("| nmt | %.3f | %.3f |" % (statistics.median(nmt), min(nmt)))
print()
print("median of the rounds' differences, nmt - baseline: %+.3f s"
      % statistics.median(n - b for n, b in zip(nmt, baseline)))
PY
  cat "$out/alternating.md"
fi
echo "bench-startup: record in $out" >&2
