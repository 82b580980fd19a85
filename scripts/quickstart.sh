#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a trained model: installs the packages, builds,
# trains configs/quickstart.json on the bundled sample corpus (about a minute on 2 cores) and
# translates a few sentences with it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/src/nmt prepare --config configs/quickstart.json --out runs/quickstart-data
