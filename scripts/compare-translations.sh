#!/usr/bin/env bash
# Do two nmt binaries translate a run's sentences identically? Translates every source sentence of
# the run's train, valid and test splits with both, greedy and beam, in each precision given, and
# reports per setting whether the outputs are byte-identical (and the differing lines when not).
#
#   scripts/compare-translations.sh BEFORE_NMT AFTER_NMT RUN [PRECISIONS...]   (default: fp32 int8)
#
# Used to check that a decoding change leaves translations as they were (docs/performance.md).
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: scripts/compare-translations.sh BEFORE_NMT AFTER_NMT RUN [PRECISIONS...]" >&2; exit 2; }
before=$1
after=$2
run=$3
shift 3
precisions=("$@")
[[ ${#precisions[@]} -gt 0 ]] || precisions=(fp32 int8)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat "$run"/train.tsv "$run"/valid.tsv "$run"/test.tsv | cut -f1 > "$scratch/sources.txt"
echo "compare-translations: $(wc -l < "$scratch/sources.txt") sentences of $run"
echo "  before: $before ($("$before" --version | head -2 | tr '\n' ' '))"
echo "  after:  $after ($("$after" --version | head -2 | tr '\n' ' '))"
status=0
for precision in "${precisions[@]}"; do
  for strategy in greedy beam; do
    for side in before after; do
      "${!side}" -q translate --model "$run" --strategy "$strategy" --precision "$precision" \
        < "$scratch/sources.txt" > "$scratch/$side.txt"
    done
    if cmp -s "$scratch/before.txt" "$scratch/after.txt"; then
      echo "$precision $strategy: identical"
    else
      echo "$precision $strategy: $(diff "$scratch/before.txt" "$scratch/after.txt" | grep -c '^<') lines differ"
      diff "$scratch/before.txt" "$scratch/after.txt" | head -20
      status=1
    fi
  done
done
exit "$status"
