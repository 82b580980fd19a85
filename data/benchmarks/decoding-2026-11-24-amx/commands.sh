#!/usr/bin/env bash
# Decoding before (59a492e) / after (HEAD) on the recommended model, idle machine.
set -euo pipefail
rec=$1   # record dir
before=/work/sweep/nmt-59a492e
after=/work/main/build/src/nmt
mkdir -p "$rec/before-after" "$rec/profiles"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  lscpu | grep -E "Model name|^CPU\(s\)|L1d|L2|L3"
  grep -o -w "avx512_vnni\|avx512_bf16\|amx_int8\|amx_tile" /proc/cpuinfo | sort -u | sed 's/^/cpu flag: /'
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "before: $before (nmt at 59a492e)"; "$before" --version
  echo "after: $after (nmt at $(git -C /work/main rev-parse --short HEAD))"; "$after" --version
} > "$rec/machine.txt"
for strategy in greedy beam; do
  for precision in int8 bf16 fp32; do
    for threads in 1 2; do
      for side in before after; do
        bin=$before; [[ $side == after ]] && bin=$after
        "$bin" -q bench translate --model /work/runs/tatoeba --n 2000 --strategy $strategy --beam-size 5 \
          --precision $precision --threads $threads --max-len 256 --json > "$rec/before-after/$side-$strategy-$precision-t$threads.json"
      done
    done
  done
done
for strategy in greedy beam; do
  for side in before after; do
    bin=$before; [[ $side == after ]] && bin=$after
    perf record -q -F 1999 -g -o /tmp/prof.data "$bin" -q bench translate --model /work/runs/tatoeba --n 2000 \
      --strategy $strategy --beam-size 5 --precision int8 --threads 1 --max-len 256 --json > /dev/null 2>&1
    perf report -i /tmp/prof.data --no-children --sort dso,symbol --stdio -g none --percent-limit 0.5 2> /dev/null |
      grep -v "^$" > "$rec/profiles/$side-$strategy-int8-t1.txt"
  done
done
