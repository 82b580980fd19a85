#!/usr/bin/env bash
# The lines every benchmark record's machine.txt starts with: the date (UTC), the commit (and
# whether src/ or include/ differ from it), the CPU model (name, family, number) and count, and the ISA flags nmt's tiers
# read. Run from the repository root by the bench scripts:
#
#   scripts/machine-header.sh > OUT/machine.txt
set -euo pipefail
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
# A copy without .git (the GPU machine's) names its commit in NMT_COMMIT.
if [[ -n ${NMT_COMMIT:-} ]]; then
  echo "commit: $NMT_COMMIT"
else
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src include || echo ' (with changes)')"
fi
lscpu | grep -E '^(Model name|CPU family|Model|CPU\(s\)):'
echo "ISA flags: $(grep -m1 -o -w -E 'avx2|avx512f|avx512_vnni|avx512_bf16|amx_int8|amx_tile|avx_vnni' \
  /proc/cpuinfo | sort -u | tr '\n' ' ')"
