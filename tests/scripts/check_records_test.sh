#!/usr/bin/env bash
# scripts/check-records.sh on a copy of the documentation and the records: it passes as they are,
# and fails, naming the file, the line and the figure, on each wrong figure planted in them: a
# figure with its unit changed by a digit, a ratio that its row's numbers do not give, a figure
# whose record lost the number, a record that does not exist.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "check_records_test: $*" >&2; exit 1; }

copy=$scratch/repo
mkdir -p "$copy/scripts" "$copy/data"
cp "$source_dir/scripts/check-records.sh" "$source_dir/scripts/check-docs.py" "$copy/scripts/"
cp -r "$source_dir/README.md" "$source_dir/docs" "$copy/"
cp -r "$source_dir/data/benchmarks" "$copy/data/"
check() { bash "$copy/scripts/check-records.sh"; }

check > "$scratch/clean.log" || { cat "$scratch/clean.log"; fail "the documentation as it is fails"; }

# plant NAME FILE SEARCH REPLACE EXPECTED: FILE with SEARCH replaced fails with EXPECTED; restored.
plant() {
  local name=$1 file=$copy/$2 search=$3 replace=$4 expected=$5 output status=0
  cp "$file" "$scratch/saved"
  grep -qF -- "$search" "$file" || fail "$name: \"$search\" is not in $2 (the test needs updating)"
  python3 - "$file" "$search" "$replace" <<'PY'
import sys
path, search, replace = sys.argv[1:]
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write(text.replace(search, replace, 1))
PY
  output=$(check 2>&1) || status=$?
  cp "$scratch/saved" "$file"
  [[ $status -eq 1 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
}

line=$(grep -n '84.7× in int8 (1,718.6 sentences/s)' "$copy/README.md" | cut -d: -f1)
plant "a digit changed" README.md "84.7× in int8 (1,718.6 sentences/s)" \
  "84.7× in int8 (1,781.6 sentences/s)" \
  "README.md:$line: 1,781.6 sentences/s is in no file of data/benchmarks/cpu-bf16-int8-2026-11-23/"
line=$(grep -n '1.17× CTranslate2' "$copy/README.md" | cut -d: -f1)
# 8.17: in no record of the row (their hypotheses and unrounded JSON figures hold many small
# numbers; 2.17 passed once the row named a third record), and no two numbers of the row give it.
plant "a ratio its row does not give" README.md "1.17× CTranslate2" "8.17× CTranslate2" \
  "README.md:$line: 8.17× is in no file of data/benchmarks/peers-2026-11-24-amx/"
line=$(grep -n 'measured: 168 MiB' "$copy/docs/reliability.md" | cut -d: -f1)
plant "the record lost the number" data/benchmarks/gzip-bomb-2026-11-24/README.md \
  "Maximum resident set size (kbytes): 171544" "Maximum resident set size (kbytes): 191544" \
  "docs/reliability.md:$line: 168 MiB is in no file of data/benchmarks/gzip-bomb-2026-11-24/"
plant "a record that does not exist" README.md "data/benchmarks/startup-2026-11-24/" \
  "data/benchmarks/startup-2026-11-42/" "the record data/benchmarks/startup-2026-11-42/ does not exist"
echo "check_records_test: ok ($(tail -1 "$scratch/clean.log"))"
