#!/usr/bin/env bash
# The allocators alternating: glibc's malloc (nmt until now) and tcmalloc (gperftools, preloaded),
# two rounds of 2 minutes of bf16 training (the default here), then one of fp32.
cd "$(dirname "$0")"
for round in 1 2; do
  ./trace-train.sh ab-bf16-glibc-$round -- --max-time 2m
  ./trace-train.sh ab-bf16-tcmalloc-$round LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 -- --max-time 2m
done
./trace-train.sh ab-fp32-glibc -- --max-time 2m --precision fp32
./trace-train.sh ab-fp32-tcmalloc LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 -- --max-time 2m --precision fp32
