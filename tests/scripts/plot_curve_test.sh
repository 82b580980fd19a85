#!/usr/bin/env bash
# scripts/plot-curve.py: a TSV of two series becomes an SVG with one polyline per series, its points
# placed by their values (a larger y is drawn higher), labelled and named in the legend; a missing
# column and a non-number are refused naming the file, the column or the line, and write nothing.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
plot=("${PYTHON:-python3}" "$source_dir/scripts/plot-curve.py")

printf 'model\tminutes\tbleu\nsingle\t10\t30.5\nsingle\t20\t41.25\nsingle\t40\t44\naveraged\t40\t45.5\n' > "$scratch/c.tsv"
"${plot[@]}" "$scratch/c.tsv" "$scratch/c.svg" --x minutes --y bleu --series model --title 'A & B' ||
  fail "a good TSV was refused"
svg=$(cat "$scratch/c.svg")
[[ $(grep -c '<polyline' <<< "$svg") == 2 ]] || fail "two series, two polylines"
[[ $(grep -o '<circle' <<< "$svg" | wc -l) == 4 ]] || fail "four points"
for label in '>30.5<' '>41.25<' '>44<' '>45.5<' '>single<' '>averaged<' '>A &amp; B<'; do
  grep -qF "$label" <<< "$svg" || fail "label $label missing"
done
# The first series' points: x grows with minutes, y (screen) shrinks as BLEU grows.
read -r -a points < <(grep -o '<polyline points="[^"]*"' <<< "$svg" | head -1 | sed 's/.*points="//; s/"$//')
[[ ${#points[@]} == 3 ]] || fail "the first series has 3 points: ${points[*]}"
python3 - "${points[@]}" <<'PY' || fail "points out of order: ${points[*]}"
import sys
xy = [tuple(map(float, p.split(","))) for p in sys.argv[1:]]
assert all(a[0] < b[0] and a[1] > b[1] for a, b in zip(xy, xy[1:]))
PY

if "${plot[@]}" "$scratch/c.tsv" "$scratch/bad.svg" --x minutes --y chrf 2> "$scratch/err"; then fail "a missing column was accepted"; fi
grep -qF "plot-curve: $scratch/c.tsv: no column 'chrf'" "$scratch/err" || fail "missing column message: $(cat "$scratch/err")"
printf 'minutes\tbleu\n10\tthirty\n' > "$scratch/nan.tsv"
if "${plot[@]}" "$scratch/nan.tsv" "$scratch/bad.svg" --x minutes --y bleu 2> "$scratch/err"; then fail "a non-number was accepted"; fi
grep -qF "plot-curve: $scratch/nan.tsv:2: " "$scratch/err" || fail "non-number message: $(cat "$scratch/err")"
[[ ! -e "$scratch/bad.svg" ]] || fail "a refused TSV wrote an SVG"
echo "plot-curve: ok"
