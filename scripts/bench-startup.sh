#!/usr/bin/env bash
# Wall time of `nmt translate "one sentence"`, start to exit, over repeated runs (hyperfine), and of
# its parts: the process start alone (`nmt --version`: loading LibTorch and its libraries) and the
# same translation with another nmt binary for a before/after.
#
#   scripts/bench-startup.sh --model RUN [--baseline OTHER_NMT] [--runs N] [--out DIR]
#
# Writes DIR (default data/benchmarks/startup-<UTC date>): command.txt, machine.txt, hyperfine's
# JSON and markdown. Figures mean something only on an otherwise idle machine.
# Environment: NMT (default build/src/nmt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nmt=${NMT:-$root/build/src/nmt}
model=""
baseline=""
runs=20
out=""
command_line="$0 $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
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
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  lscpu | grep -E '^(Model name|CPU\(s\))'
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "nmt: $("$nmt" --version | head -2 | tr '\n' ' ')"
  [[ -n $baseline ]] && echo "baseline: $baseline ($("$baseline" --version | head -2 | tr '\n' ' '))"
  echo "model: $(cd "$model" && pwd -P)"
} > "$out/machine.txt"

translate="'$nmt' -q translate --model '$model' 'I am hungry.'"
commands=(-n "nmt --version" "'$nmt' --version" -n "nmt translate, one sentence" "$translate")
if [[ -n $baseline ]]; then
  commands+=(-n "baseline translate, one sentence" "'$baseline' -q translate --model '$model' 'I am hungry.'")
fi
hyperfine --warmup 3 --runs "$runs" --export-json "$out/hyperfine.json" \
  --export-markdown "$out/hyperfine.md" "${commands[@]}"
echo "bench-startup: record in $out" >&2
