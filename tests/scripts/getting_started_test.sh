#!/usr/bin/env bash
# docs/getting-started.md works as written: every code line from its "tested from here" marker to
# the end of the page (own corpus, configuration, training, eval, translate, serve, export) runs,
# in that order, as one bash script in a scratch copy of the sample data, with the nmt under test
# on PATH. Step 1 (scripts/quickstart.sh: packages and the build) is what CI does before this test.
# The only change to the page's lines: the server's port 8080 becomes a free one.
#   tests/scripts/getting_started_test.sh NMT_BINARY
set -euo pipefail
nmt=$(realpath "$1")
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
page=$source_dir/docs/getting-started.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch/data" "$scratch/bin"
cp -r "$source_dir/data/sample" "$scratch/data/"
ln -s "$nmt" "$scratch/bin/nmt"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# The page's code lines after the marker: indented code blocks, four spaces removed. A server the
# steps leave running (they failed before `kill $!`) goes when they end.
{
  echo "trap 'exit 143' TERM; trap 'kill \$(jobs -p) 2> /dev/null || true' EXIT"
  awk '/tests\/scripts\/getting_started_test.sh runs every code line/ { on = 1; next }
       on && /^    / { print substr($0, 5) }' "$page" | sed "s/8080/$port/g"
} > "$scratch/steps.sh"
[[ $(wc -l < "$scratch/steps.sh") -gt 20 ]] || { echo "found too few code lines in $page"; cat "$scratch/steps.sh"; exit 1; }
grep -q '^nmt serve ' "$scratch/steps.sh" || { echo "no nmt serve step in $page"; exit 1; }

cd "$scratch"
if ! PATH="$scratch/bin:$PATH" timeout 1200 bash -euo pipefail steps.sh > output.txt 2>&1; then
  echo "getting_started_test: the page's steps failed; the script and its output:"
  cat -n steps.sh
  tail -60 output.txt
  exit 1
fi
grep -q '"translatedText"' output.txt || { echo "the server gave no translation"; tail -30 output.txt; exit 1; }
grep -q 'BLEU' output.txt || { echo "nmt eval printed no BLEU"; tail -30 output.txt; exit 1; }
[[ -f runs/my-corpus/best.pt && -f my-corpus-ct2/model.bin ]] || { echo "missing the run or the export"; ls -R runs my-corpus-ct2; exit 1; }
echo "getting_started_test: ok ($(wc -l < steps.sh) lines of docs/getting-started.md ran)"
