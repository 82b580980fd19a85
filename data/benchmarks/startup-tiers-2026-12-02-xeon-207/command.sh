#!/usr/bin/env bash
# Where AVX-VNNI's extra start-up goes (issue 67): one sentence at the avx_vnni and avx2 tiers,
# each with int8 and int8w7, and avx_vnni with oneDNN held to AVX2.
set -euo pipefail
cd /work/main
out=${1:-/work/bench/startup-probe}
mkdir -p "$out"
nmt=build/src/nmt run=/work/bench/cmp-run
t() { echo "env $1 $nmt -q translate --model $run $2 'I am hungry.'"; }
scripts/machine-header.sh > "$out/machine.txt"
hyperfine -N -w 3 -r 15 --export-json "$out/hyperfine.json" --export-markdown "$out/hyperfine.md" \
  -n "version" "$nmt --version" \
  -n "avx_vnni int8" "$(t NMT_CPU_ISA=avx_vnni '--precision int8')" \
  -n "avx_vnni int8w7" "$(t NMT_CPU_ISA=avx_vnni '--precision int8w7')" \
  -n "avx_vnni int8, oneDNN AVX2" "$(t 'NMT_CPU_ISA=avx_vnni ONEDNN_MAX_CPU_ISA=AVX2' '--precision int8')" \
  -n "avx2 int8w7" "$(t NMT_CPU_ISA=avx2 '--precision int8w7')" \
  -n "avx2 int8" "$(t NMT_CPU_ISA=avx2 '--precision int8')" \
  -n "native int8" "$(t '' '--precision int8')"
