#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a trained model: installs the packages, builds,
# trains configs/quickstart.json on the bundled sample corpus (under a minute on 2 cores),
# translates a few sentences with it and scores it on its held-out test split.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
nmt=build/src/nmt
"$nmt" train --config configs/quickstart.json   # writes runs/quickstart-<date>-<time>, runs/latest points at it
echo "== nmt translate"
"$nmt" translate "I am hungry." "Where is the library?" "She likes music." "We buy flowers."
echo "== nmt eval (test split)"
"$nmt" eval
