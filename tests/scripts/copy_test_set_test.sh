#!/usr/bin/env bash
# scripts/copy-test-set.py and scripts/count-verbatim.py, the two halves of
# scripts/bench-copying.sh: the set has 100 sentences or more, each of the five categories 20 or
# more, unique sources whose every span is in them, and comes out the same twice; the counter, on
# three hand-made sentences and translations, finds the spans kept (not "20" inside "2019") and
# names the one lost.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "copy_test_set_test: $*" >&2; exit 1; }

python3 "$source_dir/scripts/copy-test-set.py" "$scratch/set.tsv"
python3 "$source_dir/scripts/copy-test-set.py" "$scratch/again.tsv"
cmp -s "$scratch/set.tsv" "$scratch/again.tsv" || fail "two runs wrote different sets"
python3 - "$scratch/set.tsv" <<'PY' || fail "the set is not as it should be"
import collections, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8")]
assert len(rows) >= 100, f"{len(rows)} sentences"
assert all(len(row) == 3 for row in rows), [row for row in rows if len(row) != 3][:3]
by = collections.Counter(category for _, category, _ in rows)
assert set(by) == {"number", "name", "code", "url", "email"}, by
assert min(by.values()) >= 20, by
sources = [source for source, _, _ in rows]
duplicates = [s for s, n in collections.Counter(sources).items() if n > 1]
assert not duplicates, duplicates[:3]
for source, _, spans in rows:
    assert spans, source
    for span in spans.split("|"):
        assert span and span in source, (source, span)
    assert 5 <= len(source.split()) <= 15, source
PY

printf '%s\t%s\t%s\n' \
  "We sold 20 cars in 2019." number "20|2019" \
  "Zbigniew lives in Szczecin." name "Zbigniew|Szczecin" \
  "Visit https://example.org/docs for more information." url "https://example.org/docs" \
  > "$scratch/tiny.tsv"
printf '%s\n' \
  "Vendimos veinte coches en 2019." \
  "Zbigniew vive en Szczecin." \
  "Visite https://example.org/docs para más información." > "$scratch/tiny.hyp"
python3 "$source_dir/scripts/count-verbatim.py" "$scratch/tiny.tsv" "$scratch/tiny.hyp" \
  > "$scratch/tiny.json" || fail "count-verbatim.py failed"
python3 - "$scratch/tiny.json" <<'PY' || { cat "$scratch/tiny.json"; fail "wrong counts"; }
import json, sys
result = json.load(open(sys.argv[1], encoding="utf-8"))
assert (result["kept"], result["total"]) == (4, 5), result
assert result["by_category"] == {"number": {"kept": 1, "total": 2},
                                 "name": {"kept": 2, "total": 2},
                                 "url": {"kept": 1, "total": 1}}, result["by_category"]
assert result["lost"] == [["We sold 20 cars in 2019.", "20", "Vendimos veinte coches en 2019."]], \
    result["lost"]
PY
# A hypothesis file of another length is an error, not a count.
head -2 "$scratch/tiny.hyp" > "$scratch/short.hyp"
python3 "$source_dir/scripts/count-verbatim.py" "$scratch/tiny.tsv" "$scratch/short.hyp" \
  > /dev/null 2>&1 && fail "count-verbatim.py counted a hypothesis file of 2 lines for 3 sentences"
echo "copy_test_set_test: ok ($(wc -l < "$scratch/set.tsv") sentences)"
