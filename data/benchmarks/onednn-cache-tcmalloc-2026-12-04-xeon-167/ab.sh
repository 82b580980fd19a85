#!/usr/bin/env bash
# oneDNN's primitive cache at nmt's 24 (its default since 2026-12-02, set for glibc's memory) and at
# oneDNN's own 1,024, both with tcmalloc (build/src/nmt of 1fc3bfa; 39f8b1b adds records and docs
# only): two rounds of 2 minutes of bf16 training on the prepared 30M pairs with validation,
# alternating, the order reversed in round 2.
cd "$(dirname "$0")"
./trace-train.sh cache24-1 -- --max-time 2m
./trace-train.sh cache1024-1 ONEDNN_PRIMITIVE_CACHE_CAPACITY=1024 -- --max-time 2m
./trace-train.sh cache1024-2 ONEDNN_PRIMITIVE_CACHE_CAPACITY=1024 -- --max-time 2m
./trace-train.sh cache24-2 -- --max-time 2m
