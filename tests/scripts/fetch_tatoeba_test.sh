#!/usr/bin/env bash
# scripts/fetch-tatoeba.sh against local file:// URLs (no network): a well-formed manythings.org zip
# becomes eng-LLL.tsv.gz with the attribution column dropped and a README; a zip with a malformed
# line or without LANG.txt fails and writes nothing.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for tool in zip unzip curl; do
  # Exit 77 is ctest's skip (SKIP_RETURN_CODE): the GPU machine, for one, has none of these.
  command -v "$tool" > /dev/null || { echo "SKIPPED: $tool is not installed (scripts/install-deps.sh installs it)"; exit 77; }
done

printf 'Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM)\nHi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123 (CM)\n' \
  > "$scratch/fra.txt"
(cd "$scratch" && zip -q fra-eng.zip fra.txt)
"$source_dir/scripts/fetch-tatoeba.sh" fra --url "file://$scratch/fra-eng.zip" --out "$scratch/out" \
  > "$scratch/log" 2>&1 || { cat "$scratch/log"; fail "a good zip was refused"; }
grep -q "fetch-tatoeba: 2 pairs in $scratch/out/eng-fra.tsv.gz" "$scratch/log" || { cat "$scratch/log"; fail "summary line"; }
[[ "$(zcat "$scratch/out/eng-fra.tsv.gz")" == $'Go.\tVa !\nHi.\tSalut !' ]] || fail "content: $(zcat "$scratch/out/eng-fra.tsv.gz")"
grep -q "CC-BY 2.0 FR" "$scratch/out/README.md" || fail "README lacks the licence"
grep -q "$(zcat "$scratch/out/eng-fra.tsv.gz" | sha256sum | cut -d' ' -f1)" "$scratch/out/README.md" || fail "README checksum"

printf 'Go.\tVa !\tattribution\nbroken line\n' > "$scratch/deu.txt"
(cd "$scratch" && zip -q deu-eng.zip deu.txt)
if "$source_dir/scripts/fetch-tatoeba.sh" deu --url "file://$scratch/deu-eng.zip" --out "$scratch/bad" > "$scratch/log" 2>&1; then
  fail "a malformed line was accepted"
fi
grep -q "deu.txt:2: expected english<TAB>translation" "$scratch/log" || { cat "$scratch/log"; fail "no line number"; }
[[ ! -e "$scratch/bad" ]] || fail "a failed fetch left files behind"

if "$source_dir/scripts/fetch-tatoeba.sh" ita --url "file://$scratch/fra-eng.zip" --out "$scratch/bad" > "$scratch/log" 2>&1; then
  fail "a zip without ita.txt was accepted"
fi
grep -q "is not a zip holding ita.txt" "$scratch/log" || { cat "$scratch/log"; fail "missing-file message"; }
if "$source_dir/scripts/fetch-tatoeba.sh" ita --url "file://$scratch/nowhere.zip" > "$scratch/log" 2>&1; then
  fail "a missing URL was accepted"
fi
grep -q "cannot download file://$scratch/nowhere.zip" "$scratch/log" || { cat "$scratch/log"; fail "download message"; }
echo "fetch-tatoeba: all checks passed"
