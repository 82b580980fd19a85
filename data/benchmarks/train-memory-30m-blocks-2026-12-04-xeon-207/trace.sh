#!/usr/bin/env bash
# run.sh's benchmark, once for each NAME=BINARY:PRECISION argument in turn (without arguments:
# after-bf16=build/src/nmt:bf16 before-bf16=$BEFORE_NMT:bf16), the process's resident memory read
# from /proc/PID/status every 0.2 s: the highest anonymous (RssAnon), file-backed (RssFile) and
# whole (VmRSS) figures, and a sample every 5 s, in trace-NAME.txt.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=data/benchmarks/train-memory-30m-blocks-2026-12-04-xeon-207
trace() {  # NAME BINARY PRECISION
  "$2" bench train --config /work/m30/config.json --prepared /work/m30/run --steps 100 \
    --warmup 2 --threads 2 --precision "$3" --json > "$out/trace-$1.json" 2> "$out/trace-$1.log" &
  local pid=$! anon=0 file=0 rss=0 n=0
  sleep 0.2
  while kill -0 $pid 2>/dev/null; do
    # nmt starts nmt-torch and waits for it: read the process that does the work.
    local worker; worker=$(pgrep -P $pid | head -1 || true)
    local status=/proc/${worker:-$pid}/status
    read -r a f r < <(awk '/^RssAnon/{a=$2}/^RssFile/{f=$2}/^VmRSS/{r=$2}END{print a+0, f+0, r+0}' "$status" 2>/dev/null || echo "0 0 0")
    (( a > anon )) && anon=$a; (( f > file )) && file=$f; (( r > rss )) && rss=$r
    (( n % 25 == 0 )) && echo "$(date -u +%T) anon $((a / 1024)) MiB, file $((f / 1024)) MiB, rss $((r / 1024)) MiB" >> "$out/trace-$1.txt"
    n=$((n + 1)); sleep 0.2
  done
  wait $pid
  echo "$1: highest anon $((anon / 1024)) MiB, file $((file / 1024)) MiB, rss $((rss / 1024)) MiB; $(grep -o '"peak_rss_mib":[0-9.]*' "$out/trace-$1.json")" | tee -a "$out/trace-$1.txt"
}
if [[ $# -eq 0 ]]; then
  set -- after-bf16=build/src/nmt:bf16 "before-bf16=${BEFORE_NMT:-/tmp/x/build/src/nmt}:bf16"
fi
for run in "$@"; do
  name=${run%%=*} binary=${run#*=}
  echo "$name: $("${binary%:*}" --version | head -1), commit $(git -C "$(dirname "${binary%:*}")/../.." rev-parse --short HEAD)" >> "$out/trace-runs.txt"
  trace "$name" "${binary%:*}" "${binary##*:}"
done
