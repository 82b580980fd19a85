#!/usr/bin/env bash
# scripts/cut-test-set.sh on the sample corpus plus a few long and repeated sentences: the same seed
# cuts the same lines, every translation of a picked source comes along, LONG adds sentences of
# more than 15 words, and `nmt prepare` with the cut as data.test drops exactly those pairs from
# training and keeps every one of them, long ones included, in its test split.
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
cut=$source_dir/scripts/cut-test-set.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "cut_test_set_test: $*" >&2; exit 1; }

corpus=$scratch/corpus.tsv
cp "$source_dir/data/sample/en-es.tsv" "$corpus"
cat >> "$corpus" <<'TSV'
hello!	¡Hola a todos!
When I was a child I used to spend every summer at my grandparents' house near the sea with my cousins.	Cuando era niño pasaba todos los veranos en casa de mis abuelos cerca del mar con mis primos.
When I was a child, I used to spend every summer at my grandparents' house near the sea with my cousins!	De niño pasaba cada verano en casa de mis abuelos junto al mar con mis primos.
The train that was supposed to arrive at nine o'clock this morning has been delayed by more than two hours.	El tren que debía llegar a las nueve de la mañana lleva más de dos horas de retraso.
If you had told me earlier that you were coming to the city, I would have picked you up at the airport.	Si me hubieras dicho antes que venías a la ciudad, te habría recogido en el aeropuerto.
TSV
gzip -k "$corpus"

SENTENCES=30 LONG=2 SEED=5 "$cut" "$corpus" "$scratch/test.tsv" > "$scratch/cut.log"
grep -q '^cut 32 source sentences, ' "$scratch/cut.log" || { cat "$scratch/cut.log"; fail "unexpected summary"; }
SENTENCES=30 LONG=2 SEED=5 "$cut" "$corpus.gz" "$scratch/again.tsv" > /dev/null
cmp -s "$scratch/test.tsv" "$scratch/again.tsv" || fail "the same seed cut different lines from the .gz"
SENTENCES=30 LONG=2 SEED=6 "$cut" "$corpus" "$scratch/other.tsv" > /dev/null
cmp -s "$scratch/test.tsv" "$scratch/other.tsv" && fail "another seed cut the same lines"
while IFS= read -r line; do
  grep -qxF -- "$line" "$corpus" || fail "not a corpus line: $line"
done < "$scratch/test.tsv"
long=$(awk -F'\t' 'split($1, w, " ") > 15' "$scratch/test.tsv" | wc -l)
[[ $long -ge 2 ]] || fail "LONG=2 picked $long pairs of more than 15 words"
# "Hello!" and "hello!" are one source for nmt (the notebook's cleaning): both or neither.
hellos=$(grep -ci '^hello!'$'\t' "$scratch/test.tsv" || true)
[[ $hellos -eq 0 || $hellos -eq 2 ]] || fail "one of the two hello! pairs went to the test set"

# Aligned plain text cuts the same pairs.
cut -f1 "$corpus" > "$scratch/corpus.en"
cut -f2 "$corpus" > "$scratch/corpus.es"
SENTENCES=30 LONG=2 SEED=5 "$cut" "$scratch/corpus.en" "$scratch/corpus.es" "$scratch/test.en" "$scratch/test.es" > /dev/null
paste "$scratch/test.en" "$scratch/test.es" | cmp -s - "$scratch/test.tsv" || fail "aligned files cut other pairs"

# nmt keeps the test set whole and its sources out of training.
cat > "$scratch/config.json" <<JSON
{"data": {"path": "$corpus", "test": {"path": "$scratch/test.tsv"}, "max_words": 15},
 "text": {"clean": "normalize", "tokenizer": "word"}}
JSON
"$nmt" -q prepare --config "$scratch/config.json" --out "$scratch/prepared" > "$scratch/prepare.log" 2>&1 \
  || { cat "$scratch/prepare.log"; fail "nmt prepare failed"; }
pairs=$(wc -l < "$scratch/test.tsv")
[[ $(wc -l < "$scratch/prepared/test.tsv") -eq $pairs ]] || fail "the test split lost pairs"
python3 - "$scratch/prepared" <<'PY' || fail "a test source is in the training split"
import json, re, sys
def clean_text(text):  # the notebook's, nmt's held-out key
    text = re.sub(r"([¿?¡!,])", r" \1 ", text.lower())
    return re.sub(r"\s+", " ", re.sub(r"[^a-zA-Z0-9áéíóúüñ¿?¡!,]+", " ", text)).strip()
sources = lambda name: {clean_text(line.split("\t")[0]) for line in open(f"{sys.argv[1]}/{name}")}
shared = sources("train.tsv") & sources("test.tsv")
assert not shared, f"in both splits: {sorted(shared)[:3]}"
assert json.load(open(f"{sys.argv[1]}/prepare.json"))["dropped"]["source_in_dev_or_test"] > 0
PY
echo "cut_test_set_test: ok"
