#!/usr/bin/env bash
# Makes the pinned Python environments of the comparison and interoperability scripts, each in
# .venv/NAME (git-ignored). PyPI packages serve only these comparisons: nmt itself never needs them.
#
#   scripts/peers/setup-venv.sh NAME...
#
#   ct2   CTranslate2 4.8.5 (CPU wheel), sacreBLEU 2.6, SentencePiece, psutil: the `nmt export`
#         round trip (tests/export/round_trip_test.sh) and scripts/peers/bench-translate.sh
#   hf    Hugging Face transformers 5.24.0 with tokenizers, safetensors, SentencePiece, numpy, and
#         the torch 2.11.0 of .venv/torch2-2.11.0 (made by `scripts/test-torch2.sh --build-only`;
#         NMT_TORCH2_VENV names another venv holding torch): the Marian fixtures of `nmt import`
#         (tests/import/make_marian_fixture.py)
#   argos LibreTranslate 1.9.6 with the argostranslate it pins (argos-translate-lt 1.12.1, which
#         is argostranslate 1.11 without the hard dependency on stanza and torch) and
#         CTranslate2 4.8.5: `nmt export --format argos` (tests/export/argos_round_trip_test.sh)
#
# An environment is one requirements_NAME function below; add one beside them for another peer.
# An environment that needs more than its list also has a check_NAME function, run before it is
# made or reused (exit 1 with the reason when it cannot be), and a finish_NAME DIR function, run
# after (see hf's).
# Each list is complete, dependencies included, and installed with `pip --no-deps`, so that pip
# never reaches past it (accelerate asks for torch: without --no-deps pip would install PyPI's
# 3 GB CUDA torch into .venv/hf instead of borrowing one); `pip check` then proves nothing is
# missing.
# Idempotent: an environment already holding exactly its pinned list is left as it is (a second
# call returns at once); a partial or outdated one is made again. Needs `python3 -m venv` (Debian's
# python3-venv, installed with apt when missing). Prints the environment's Python per NAME.
# Exit status: 0 ready, 1 cannot be made (no network, no python3-venv, for hf no torch venv: the
# message says which), 2 usage.
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

# Pinned packages of .venv/hf, dependencies included, one per line; torch is not among them (below).
requirements_hf() {
  cat <<'LIST'
accelerate==1.15.0
annotated-doc==0.0.7
annotated-types==0.8.0
anyio==4.16.0
click==8.5.1
filelock==4.3.1
fsspec==2026.9.0
h11==0.16.0
hf-xet==1.8.0
httpcore2==2.16.2
httpx2==2.16.2
huggingface-hub==2.4.0
idna==3.20
markdown-it-py==4.3.0
mdurl==0.1.2
numpy==2.4.6
packaging==26.4
psutil==7.2.2
pydantic==2.14.4
pydantic-core==2.50.5
pygments==2.21.0
pyyaml==6.0.4
regex==2026.11.19
rich==15.0.0
safetensors==0.8.0
sentencepiece==0.2.3
shellingham==1.5.4
tokenizers==0.23.3
tqdm==4.70.1
transformers==5.24.0
truststore==0.10.5
typer==0.29.2
typing-extensions==4.16.0
typing-inspection==0.4.5
LIST
}

# .venv/hf borrows its torch from another venv instead of installing it: PyPI's torch wheel is the
# CUDA build, about 3 GB with its nvidia wheels, and scripts/test-torch2.sh, which CI runs before
# the tests, already makes .venv/torch2-2.11.0 with the pinned torch==2.11.0.
torch2_venv=${NMT_TORCH2_VENV:-$root/.venv/torch2-2.11.0}

# site-packages of the venv whose Python is $1.
site_packages() {
  "$1" -c 'import sysconfig; print(sysconfig.get_path("purelib"))'
}

check_hf() {
  if [[ ! -x $torch2_venv/bin/python ]] ||
    [[ ! -f $(site_packages "$torch2_venv/bin/python")/torch/__init__.py ]]; then
    echo "setup-venv: .venv/hf takes its torch from $torch2_venv, which holds none:" \
      "make it with scripts/test-torch2.sh --build-only (or name another venv with torch in" \
      "NMT_TORCH2_VENV)" >&2
    exit 1
  fi
}

# A .pth file in .venv/hf's site-packages appends the torch venv's site-packages to sys.path, after
# .venv/hf's own packages, so .venv/hf's pins win where both hold a package (filelock,
# typing-extensions). It is written after pip has run, never before: pip would otherwise count that
# venv's packages as installed and leave those out of .venv/hf. Rewritten on every call, so it
# follows NMT_TORCH2_VENV.
finish_hf() {
  local dir=$1 own borrowed
  own=$(site_packages "$dir/bin/python")
  borrowed=$(site_packages "$torch2_venv/bin/python")
  # Compiled wheels work only for the Python they were built for: lib/pythonX.Y must match.
  if [[ ${own#"$dir"} != "${borrowed#"$torch2_venv"}" ]]; then
    echo "setup-venv: $torch2_venv is for another Python ($borrowed) than .venv/hf ($own)" >&2
    exit 1
  fi
  printf '# torch of %s (scripts/peers/setup-venv.sh)\n%s\n' "$torch2_venv" "$borrowed" \
    > "$own/nmt-torch2.pth"
}

# Pinned packages of .venv/argos, dependencies included, one per line: libretranslate 1.9.6's
# resolution on Python 3.11 (numpy below 2, as it asks there).
requirements_argos() {
  cat <<'LIST'
APScheduler==3.11.2
argos-translate-files==1.4.4
argos-translate-lt==1.12.1
async-timeout==5.0.1
babel==2.19.0
beautifulsoup4==4.9.3
certifi==2026.10.19.post1
chardet==7.7.0
charset-normalizer==3.5.3
click==8.5.1
cloudpickle==3.1.3
commonmark==0.9.2
ctranslate2==4.8.5
Deprecated==1.3.1
expiringdict==1.2.2
filelock==4.3.1
flask-babel==3.1.0
Flask-Limiter==2.6.3
flask-swagger-ui==4.11.1
flask-swagger==0.2.14
Flask==2.2.5
flatbuffers==25.12.19
idna==3.20
itsdangerous==2.1.2
Jinja2==3.1.6
joblib==1.6.0
langdetect==1.0.9
LexiLang==1.0.7
libretranslate==1.9.6
limits==5.8.0
lxml==6.1.3
MarkupSafe==3.0.4
minisbd==0.9.5
networkx==3.6.1
numpy==1.26.4
onnxruntime==1.32.0
packaging==23.1
polib==1.1.1
prometheus-client==0.15.0
protobuf==7.36.2
psutil==7.2.2
Pygments==2.21.0
pymupdf4llm==2.0
pymupdf==2.0
pymupdf_layout==2.0
pysrt==1.1.2
pytz==2026.6
PyYAML==6.0.4
redis==4.4.4
regex==2026.11.19
requests==2.31.0
rich==12.6.0
sacremoses==0.1.1
sentencepiece==0.2.3
six==1.17.0
soupsieve==4.1.3
tabulate==0.10.0
tqdm==4.70.1
typing_extensions==4.16.0
tzlocal==5.4.5
urllib3==2.8.0
waitress==2.1.2
Werkzeug==2.3.8
wrapt==2.5.2
LIST
}

usage() {
  echo "usage: scripts/peers/setup-venv.sh NAME... (environments: ct2, hf, argos)" >&2
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

# Runs the hook function $1 (arguments after it) when the environment defines one.
run_hook() {
  if declare -F "$1" > /dev/null; then "$@"; fi
}

make_venv() {
  local name=$1 dir=$root/.venv/$1 wanted
  # The first line tells environments made before --no-deps (whose lists may hold more) apart.
  wanted=$(echo "# installed with pip install --no-deps"; "requirements_$name")
  run_hook "check_$name"
  if [[ -x $dir/bin/python && -f $dir/requirements.txt ]] &&
    [[ "$(cat "$dir/requirements.txt")" == "$wanted" ]]; then
    run_hook "finish_$name" "$dir"
    echo "$dir/bin/python"
    return 0
  fi
  ensure_venv_module
  rm -rf "$dir"
  python3 -m venv "$dir"
  # Written last: an environment whose installation was cut off is made again next time.
  printf '%s\n' "$wanted" > "$dir/requirements.in"
  if ! "$dir/bin/pip" install --disable-pip-version-check --no-input --quiet --timeout 30 \
    --retries 2 --no-deps -r "$dir/requirements.in" >&2; then
    rm -rf "$dir"
    echo "setup-venv: cannot install .venv/$name's packages from PyPI" \
      "(is the network reachable?)" >&2
    exit 1
  fi
  run_hook "finish_$name" "$dir"
  if ! "$dir/bin/pip" check --disable-pip-version-check >&2; then
    rm -rf "$dir"
    echo "setup-venv: .venv/$name's list misses a dependency (pip check, above): add it to" \
      "requirements_$name in $0" >&2
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
