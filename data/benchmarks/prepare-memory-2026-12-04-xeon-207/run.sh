#!/usr/bin/env bash
# SIZE=10M|30M run.sh NAME=BINARY...: `nmt prepare` of the SIZE-pair corpus
# (scripts/make-large-corpus.py --pairs SIZE --seed 1 into /work/m10 or /work/m30, c.en and c.es;
# config-SIZE.json) once for each NAME=BINARY in turn, alone on the machine, its resident memory
# read from /proc every 0.2 s (RssAnon, RssFile, VmRSS, in KiB) into trace-SIZE-NAME.txt, each
# sample with its time; summary.md gets each run's highest VmRSS in each step of the data phase,
# the steps cut at the seconds of prepare.log's lines (a sample in the second of a step's last
# line counts for the next step).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=data/benchmarks/prepare-memory-2026-12-04-xeon-207
size=${SIZE:-10M}
work=/work/m${size%M}
summarize() {  # RUN: the highest VmRSS in each step
  python3 - "$out/trace-$1.txt" "$out/prepare-$1.log" "$1" >> "$out/summary.md" <<'PY'
import re, sys
trace, log, name = sys.argv[1:]
samples = [l.split() for l in open(trace) if l[0].isdigit()]
steps = [("reading and cleaning", " lines, "), ("held-out groups, train.tsv", "cleaned and split"),
         ("vocabulary", "vocabulary: trained in"), ("tokenizing", "info tokenized"),
         ("joining the parts", "info split: "), ("the rest", "data ready")]
ends = {}
for line in open(log):
    m = re.match(r"\[(\d\d:\d\d:\d\d)\]", line)
    for step, text in steps:
        if m and text in line and step not in ends: ends[step] = m.group(1)
ends["the rest"] = "99:99:99"
row, start = [], "00:00:00"
for step, _ in steps:
    end = ends.get(step, "99:99:99")
    peak = max((int(s[6]) for s in samples if start <= s[0][:8] < end), default=0)
    row.append(f"{peak / 1024:,.0f}")
    start = end
print(f"| {name} | " + " | ".join(row) + " |")
PY
}
[[ -s $out/summary.md ]] || echo "| run | reading and cleaning | held-out groups, train.tsv | vocabulary | tokenizing | joining the parts | the rest |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |" > "$out/summary.md"
for run in "$@"; do
  name=$size-${run%%=*} binary=${run#*=}
  rm -rf "$work/run"
  echo "$name: $binary, $("$binary" --version | head -1), $(date -u +%FT%TZ)" >> "$out/runs.txt"
  /usr/bin/time -v "$binary" prepare --config "$out/config-$size.json" --out "$work/run" \
    > "$out/prepare-$name.log" 2>&1 &
  pid=$!
  sleep 0.2
  while kill -0 $pid 2>/dev/null; do
    worker=$(pgrep -P $pid | head -1 || true)  # time(1) runs nmt, which execs nmt-torch
    read -r a f r < <(awk '/^RssAnon/{a=$2}/^RssFile/{f=$2}/^VmRSS/{r=$2}END{print a+0, f+0, r+0}' \
      "/proc/${worker:-0}/status" 2>/dev/null || echo "0 0 0")
    echo "$(date -u +%T.%N | cut -c1-10) anon $a file $f rss $r" >> "$out/trace-$name.txt"
    sleep 0.2
  done
  wait $pid
  summarize "$name"
done
