#!/usr/bin/env bash
# Makes the pinned Python environments of the comparison and interoperability scripts, each in
# .venv/NAME (git-ignored). PyPI packages serve only these comparisons: nmt itself never needs them.
#
#   scripts/peers/setup-venv.sh ct2 [NAME...]
#
#   ct2   CTranslate2 4.8.5 (CPU wheel), sacreBLEU 2.6, SentencePiece, psutil: the `nmt export`
#         round trip (tests/export/round_trip_test.sh) and scripts/peers/bench-translate.sh
#
# An environment is one requirements_NAME function below; add one beside them for another peer.
# Idempotent: an environment already holding exactly its pinned list is left as it is (a second
# call returns at once); a partial or outdated one is made again. Needs `python3 -m venv` (Debian's
# python3-venv, installed with apt when missing). Prints the environment's Python per NAME.
# Exit status: 0 ready, 1 cannot be made (no network, no python3-venv: the message says which),
# 2 usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)

# Pinned packages of .venv/ct2, dependencies included, one per line.
requirements_ct2() {
  cat <<'LIST'
colorama==0.4.6
ctranslate2==4.8.5
lxml==6.1.3
numpy==2.4.6
portalocker==4.4.2
psutil==7.2.2
pyyaml==6.0.3
regex==2026.11.15
sacrebleu==2.6.0
sentencepiece==0.2.3
tabulate==0.10.0
LIST
}

usage() {
  echo "usage: scripts/peers/setup-venv.sh NAME... (environments: ct2)" >&2
  exit 2
}

ensure_venv_module() {
  python3 -c 'import ensurepip, venv' 2>/dev/null && return 0
  echo "setup-venv: python3 -m venv needs Debian's python3-venv; installing it" >&2
  local sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  if ! DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q python3-venv >&2; then
    echo "setup-venv: cannot install python3-venv (apt-get failed: no network or no root?)" >&2
    exit 1
  fi
}

make_venv() {
  local name=$1 dir=$root/.venv/$1 wanted
  wanted=$("requirements_$name")
  if [[ -x $dir/bin/python && -f $dir/requirements.txt ]] &&
    [[ "$(cat "$dir/requirements.txt")" == "$wanted" ]]; then
    echo "$dir/bin/python"
    return 0
  fi
  ensure_venv_module
  rm -rf "$dir"
  python3 -m venv "$dir"
  # Written last: an environment whose installation was cut off is made again next time.
  printf '%s\n' "$wanted" > "$dir/requirements.in"
  if ! "$dir/bin/pip" install --disable-pip-version-check --no-input --quiet --timeout 30 \
    --retries 2 -r "$dir/requirements.in" >&2; then
    rm -rf "$dir"
    echo "setup-venv: cannot install .venv/$name's packages from PyPI" \
      "(is the network reachable?)" >&2
    exit 1
  fi
  mv "$dir/requirements.in" "$dir/requirements.txt"
  echo "$dir/bin/python"
}

[[ $# -ge 1 ]] || usage
for name in "$@"; do
  declare -F "requirements_$name" > /dev/null || usage
done
# One setup at a time (tests run in parallel may all ask for the same environment).
mkdir -p "$root/.venv"
exec 9> "$root/.venv/.setup.lock"
flock 9
for name in "$@"; do
  make_venv "$name"
done
