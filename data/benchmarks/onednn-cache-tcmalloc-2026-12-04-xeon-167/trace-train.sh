#!/usr/bin/env bash
# trace-train.sh NAME [ENV=VALUE...] -- [nmt train flags...]: `nmt train` on the prepared 30M run for
# its max_time, from a clean start, the worker's RssAnon, RssFile and VmRSS read every 0.5 s.
set -uo pipefail
out=${TRACE_OUT:-$(cd "$(dirname "$0")" && pwd)}
name=$1; shift
envs=()
while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
shift || true
cd /work/m30  # nmt train leaves runs/latest in its working directory
rm -f /work/m30/run/*.pt /work/m30/run/metrics.jsonl
env "${envs[@]}" /usr/bin/time -v /work/main/build/src/nmt train --config /work/m30/config.json \
  --out /work/m30/run --threads 2 "$@" > "$out/trace-$name.log" 2>&1 &
pid=$!; anon=0; rss=0; n=0
sleep 0.5
while kill -0 $pid 2>/dev/null; do
  worker=$(pgrep -P $pid | head -1 || true)
  if [[ -n $worker ]]; then
    read -r a f r < <(awk '/^RssAnon/{a=$2}/^RssFile/{f=$2}/^VmRSS/{r=$2}END{print a+0, f+0, r+0}' /proc/$worker/status 2>/dev/null || echo "0 0 0")
    (( a > anon )) && anon=$a; (( r > rss )) && rss=$r
    (( n % 10 == 0 )) && echo "$(date -u +%T) anon $((a / 1024)) MiB, file $((f / 1024)) MiB, rss $((r / 1024)) MiB" >> "$out/trace-$name.txt"
  fi
  n=$((n + 1)); sleep 0.5
done
wait $pid
echo "$name (${envs[*]} -- $*): highest anon $((anon / 1024)) MiB, rss $((rss / 1024)) MiB; ru_maxrss $(awk '/Maximum resident/{print int($6/1024)}' "$out/trace-$name.log") MiB" | tee -a "$out/trace-$name.txt"
