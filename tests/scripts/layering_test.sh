#!/usr/bin/env bash
# scripts/check-layering.py: the sources keep to the drawing of docs/development.md, and on a copy
# each include planted against it is named (file:line, the folder, what it may include), as is a
# drawing without its line for nmt/.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "layering_test: $*" >&2; exit 1; }
check() { python3 "$source_dir/scripts/check-layering.py" "$@"; }

check "$source_dir" || fail "the sources as they are break the drawing"

copy=$scratch/repo
mkdir -p "$copy"
cp -r "$source_dir/docs" "$source_dir/include" "$source_dir/src" "$copy/"
sed -i '1a #include "nmt/run/config.h"' "$copy/src/model/options.cpp"
sed -i '1a #include "nmt/decode/translator.h"' "$copy/include/nmt/serve/api.h"
sed -i '1a #include "decode/beam_search.h"' "$copy/src/text/vocab.cpp"
sed -i '1a #include "nmt/text/vocab.h"' "$copy/include/nmt/io.h"
status=0
check "$copy" 2> "$scratch/found.txt" || status=$?
[[ $status -eq 1 ]] || fail "planted includes: exit $status, expected 1"
cat > "$scratch/expected.txt" <<'LINES'
include/nmt/io.h:2: nmt includes nmt/text/vocab.h (nmt may include: no other folder)
include/nmt/serve/api.h:2: serve includes nmt/decode/translator.h (serve may include: decode/options.h text/casing.h text/cut_texts.h text/html_text.h text/sentence_splitter.h viz)
src/model/options.cpp:2: model includes nmt/run/config.h (model may include: text)
src/text/vocab.cpp:2: text includes decode/beam_search.h (text may include: no other folder)
LINES
diff "$scratch/expected.txt" "$scratch/found.txt" || fail "planted includes: other lines than expected"

sed -i 's/^    nmt     →/    core    →/' "$copy/docs/development.md"
status=0
check "$copy" 2> "$scratch/unreadable.txt" || status=$?
[[ $status -eq 2 ]] || fail "a drawing without nmt: exit $status, expected 2"
grep -q "the drawing has no line for the folder nmt" "$scratch/unreadable.txt" ||
  fail "a drawing without nmt: $(cat "$scratch/unreadable.txt")"
echo "layering_test: passed"
