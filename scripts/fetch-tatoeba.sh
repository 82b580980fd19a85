#!/usr/bin/env bash
# Fetches the Tatoeba sentence pairs of English and another language as packaged by
# manythings.org/anki (CC-BY 2.0 FR), checks them, and stores them the way nmt reads them:
# data/tatoeba-en-LL/eng-LLL.tsv.gz (english<TAB>other, the attribution column dropped) with a
# README naming source, licence, pair count and SHA-256.
#
#   scripts/fetch-tatoeba.sh fra                 # English-French into data/tatoeba-en-fra/
#   scripts/fetch-tatoeba.sh deu --out /data/de  # elsewhere
#   scripts/fetch-tatoeba.sh spa --url file:///tmp/spa-eng.zip   # a copy already downloaded
#
# LANG is the three-letter code manythings.org uses (fra, deu, ita, por, tur, jpn, ...). The zip
# must hold LANG.txt with lines "english<TAB>translation<TAB>attribution". Then train with e.g.
#   nmt train --config configs/tatoeba-en-es.json --data data/tatoeba-en-fra/eng-fra.tsv.gz
# Exit status: 0 done, 1 download or check failed (nothing is left half-written), 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 ]] || usage
lang=$1
shift
[[ "$lang" =~ ^[a-z]{3}$ ]] || { echo "fetch-tatoeba: LANG must be a three-letter code, got '$lang'" >&2; exit 2; }
url="https://www.manythings.org/anki/$lang-eng.zip"
out="data/tatoeba-en-$lang"
while [[ $# -gt 0 ]]; do
  case $1 in
    --url) url=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) usage ;;
  esac
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if ! curl --fail --silent --show-error --location --output "$scratch/pairs.zip" "$url"; then
  echo "fetch-tatoeba: cannot download $url" >&2
  exit 1
fi
if ! unzip -q -o "$scratch/pairs.zip" "$lang.txt" -d "$scratch" 2>/dev/null; then
  echo "fetch-tatoeba: $url is not a zip holding $lang.txt" >&2
  exit 1
fi

# Every line must have the two sentence columns; the attribution column is dropped.
awk -F'\t' -v file="$lang.txt" '
  NF < 2 || $1 == "" || $2 == "" { bad++; if (bad <= 3) printf "fetch-tatoeba: %s:%d: expected english<TAB>translation\n", file, NR > "/dev/stderr"; next }
  { print $1 "\t" $2 }
  END { if (bad > 0) exit 1 }' "$scratch/$lang.txt" > "$scratch/pairs.tsv" ||
  { echo "fetch-tatoeba: $lang.txt has malformed lines; nothing written" >&2; exit 1; }
pairs=$(wc -l < "$scratch/pairs.tsv")
[[ $pairs -gt 0 ]] || { echo "fetch-tatoeba: $lang.txt holds no pairs" >&2; exit 1; }
iconv -f UTF-8 -t UTF-8 "$scratch/pairs.tsv" > /dev/null 2>&1 ||
  { echo "fetch-tatoeba: $lang.txt is not valid UTF-8" >&2; exit 1; }
sha=$(sha256sum "$scratch/pairs.tsv" | cut -d' ' -f1)

mkdir -p "$out"
gzip -9 -n -c "$scratch/pairs.tsv" > "$out/eng-$lang.tsv.gz.tmp"
cat > "$out/README.md.tmp" <<README
# Tatoeba English–$lang pairs

\`eng-$lang.tsv.gz\`: $pairs sentence pairs, \`english<TAB>$lang\`, UTF-8, gzip-compressed, fetched
$(date -u +%Y-%m-%d) by \`scripts/fetch-tatoeba.sh $lang\` from $url.

Source: the [Tatoeba Project](https://tatoeba.org), as packaged by
[manythings.org/anki](https://www.manythings.org/anki/).

License: [Creative Commons Attribution 2.0 France (CC-BY 2.0 FR)](https://creativecommons.org/licenses/by/2.0/fr/).
Attribution: tatoeba.org and www.manythings.org/anki. The sentences are unchanged; the third
(attribution) column was dropped.

SHA-256 of the uncompressed file: \`$sha\`
README
mv "$out/eng-$lang.tsv.gz.tmp" "$out/eng-$lang.tsv.gz"
mv "$out/README.md.tmp" "$out/README.md"
echo "fetch-tatoeba: $pairs pairs in $out/eng-$lang.tsv.gz (sha256 $sha)"
