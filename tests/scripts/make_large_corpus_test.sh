#!/usr/bin/env bash
# scripts/make-large-corpus.py on 2,000 pairs: aligned files of 2,000 non-empty lines without
# tabs, a .gz TSV of 2,000 two-column lines holding the same pairs, the same bytes for the same
# seed (gzip included) and other bytes for another, --pairs 2k the same as 2000, exit status 2
# naming a missing --from file, and with --max-join 1 every line one pair of the input.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "make_large_corpus_test: $*" >&2; exit 1; }
run_script() { python3 "$source_dir/scripts/make-large-corpus.py" "$@" 2> "$scratch/stderr"; }
# A run that must succeed: on failure, its stderr and arguments.
make_corpus() {
  run_script "$@" || { cat "$scratch/stderr" >&2; fail "make-large-corpus.py $* failed"; }
}
input="$source_dir/data/tatoeba-en-es/eng-spa.tsv.gz"

make_corpus --pairs 2000 --source "$scratch/a.en" --target "$scratch/a.es"
grep -q '^wrote 2000 pairs (.* MB) in .* s$' "$scratch/stderr" \
  || { cat "$scratch/stderr" >&2; fail "no final 'wrote 2000 pairs' line on stderr"; }
for side in en es; do
  lines=$(wc -l < "$scratch/a.$side")
  [ "$lines" -eq 2000 ] || fail "a.$side has $lines lines, not 2000"
  ! grep -q '^$' "$scratch/a.$side" \
    || fail "a.$side has an empty line: $(grep -n '^$' "$scratch/a.$side" | head -1)"
  ! grep -q $'\t' "$scratch/a.$side" \
    || fail "a.$side has a tab: $(grep -n $'\t' "$scratch/a.$side" | head -1)"
done

make_corpus --pairs 2000 --tsv "$scratch/a.tsv.gz"
gzip -t "$scratch/a.tsv.gz" || fail "a.tsv.gz is not a valid gzip file"
zcat "$scratch/a.tsv.gz" > "$scratch/a.tsv"
lines=$(wc -l < "$scratch/a.tsv")
[ "$lines" -eq 2000 ] || fail "a.tsv.gz has $lines lines, not 2000"
bad=$(awk -F'\t' 'NF != 2 || $1 == "" || $2 == "" { print NR": "$0; exit }' "$scratch/a.tsv")
[ -z "$bad" ] || fail "a.tsv.gz has a line without exactly 2 non-empty columns: $bad"
# Pipes end in files here: under pipefail, a reader that stops early (grep -q, cmp) would fail
# the writer with SIGPIPE.
paste "$scratch/a.en" "$scratch/a.es" > "$scratch/a.pasted"
cmp -s "$scratch/a.pasted" "$scratch/a.tsv" \
  || fail "the TSV holds other pairs than the aligned files of the same arguments"

# Same arguments, same bytes (for .gz too: no time stamp or file name in the header).
make_corpus --pairs 2000 --source "$scratch/again.en" --target "$scratch/again.es"
cmp -s "$scratch/a.en" "$scratch/again.en" || fail "two runs with seed 1 wrote different .en files"
cmp -s "$scratch/a.es" "$scratch/again.es" || fail "two runs with seed 1 wrote different .es files"
make_corpus --pairs 2000 --tsv "$scratch/again.tsv.gz"
cmp -s "$scratch/a.tsv.gz" "$scratch/again.tsv.gz" \
  || fail "two runs with seed 1 wrote different .tsv.gz bytes"
make_corpus --pairs 2000 --seed 2 --source "$scratch/seed2.en" --target "$scratch/seed2.es"
! cmp -s "$scratch/a.en" "$scratch/seed2.en" || fail "seeds 1 and 2 wrote the same .en file"
make_corpus --pairs 2k --source "$scratch/2k.en" --target "$scratch/2k.es"
cmp -s "$scratch/a.en" "$scratch/2k.en" && cmp -s "$scratch/a.es" "$scratch/2k.es" \
  || fail "--pairs 2k wrote other files than --pairs 2000"

# A missing input, an input without a usable pair, a bad --pairs: exit status 2 and a message
# naming the file or the value.
refused() {  # refused WHAT NAMED ARGUMENTS...
  local what=$1 named=$2 status=0
  shift 2
  run_script "$@" || status=$?
  [ "$status" -eq 2 ] || fail "$what gave exit status $status, not 2"
  grep -qF -- "$named" "$scratch/stderr" \
    || { cat "$scratch/stderr" >&2; fail "the message for $what does not name $named"; }
}
refused "a missing --from file" "$scratch/no-such.tsv" \
  --pairs 10 --from "$scratch/no-such.tsv" --tsv "$scratch/none.tsv"
printf 'one column\n\tno source\n' > "$scratch/unusable.tsv"
refused "an input without a usable pair" "$scratch/unusable.tsv" \
  --pairs 10 --from "$scratch/unusable.tsv" --tsv "$scratch/none.tsv"
refused "--pairs 2x" "2x" --pairs 2x --tsv "$scratch/none.tsv"

# --max-join 1: each line is one input pair, both sides (the bundled file is source<TAB>target).
make_corpus --pairs 2000 --max-join 1 --source "$scratch/one.en" --target "$scratch/one.es"
zcat "$input" > "$scratch/input.tsv"
paste "$scratch/one.en" "$scratch/one.es" | awk 'NR % 40 == 1' > "$scratch/sample.tsv"
[ "$(wc -l < "$scratch/sample.tsv")" -eq 50 ] || fail "the --max-join 1 sample is not 50 lines"
while IFS= read -r pair; do
  grep -Fxq -- "$pair" "$scratch/input.tsv" || fail "with --max-join 1, not an input pair: $pair"
done < "$scratch/sample.tsv"
# ... while the default (up to 3) joins some.
grep -Fxvq -f "$scratch/input.tsv" "$scratch/a.pasted" \
  || fail "with the default --max-join 3, every line is a single input pair"

sizes="$(wc -c < "$scratch/a.en") + $(wc -c < "$scratch/a.es") bytes"
echo "make_large_corpus_test: ok (2000 pairs: $sizes)"
