#!/usr/bin/env bash
# Creates the pinned Python environments of the training comparison (scripts/peers/bench-train.sh)
# under .venv/ (git-ignored). nmt itself never uses them.
#
#   scripts/peers/setup-train-venvs.sh onmt      # .venv/onmt:  OpenNMT-py 3.5.1, torch 2.2.2 (CPU use)
#   scripts/peers/setup-train-venvs.sh joey      # .venv/joey:  JoeyNMT 2.3.0, torch 2.2.2
#   scripts/peers/setup-train-venvs.sh score     # .venv/score: sacreBLEU 2.6.0, sentencepiece (pieces, scoring)
#   scripts/peers/setup-train-venvs.sh fairseq   # .venv/fairseq: fairseq 0.9.0 (fairseq-preprocess), torch
#                                               # 2.2.2, sentencepiece 0.2.0 (bench-fairseq-preprocess.sh)
#   scripts/peers/setup-train-venvs.sh all
#
# Every package, dependencies included, is pinned in scripts/peers/requirements-<env>.txt (a
# `pip freeze` of an environment that worked here); pip installs exactly those with --no-deps, so
# an environment made later is the same one. PyPI's torch wheel for x86-64 Linux is the CUDA build
# (it pulls the nvidia-* wheels, about 2.5 GB per environment); the benchmark runs it on the CPU.
# An environment whose import check passes is left as it is (FORCE=1 makes it again). Exit status:
# 0 made or already there, 1 pip or the import check failed (its output says why).
# Environment: PYTHON (python3; 3.9-3.11: torch 2.2.2 has no wheels for 3.12+), VENV_ROOT (.venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
venv_root=${VENV_ROOT:-.venv}
requirements_dir=scripts/peers

# make_env NAME CHECK [SOURCE_PACKAGE...]: a venv at $venv_root/NAME from requirements-NAME.txt,
# then the source packages built against it (no build isolation: their setup.py imports torch),
# then CHECK in it.
make_env() {
  local name=$1 check=$2 dir=$venv_root/$1 req=$requirements_dir/requirements-$1.txt
  local built=("${@:3}")
  if [[ -z ${FORCE:-} && -x $dir/bin/python ]] && "$dir/bin/python" -c "$check" >/dev/null 2>&1; then
    echo "setup-train-venvs: $dir ready"
    return 0
  fi
  [[ -f $req ]] || { echo "setup-train-venvs: $req not found" >&2; return 1; }
  "$python" -c 'import venv, ensurepip' 2>/dev/null ||
    { echo "setup-train-venvs: $python cannot make venvs (Debian: apt-get install python3-venv)" >&2; return 1; }
  echo "setup-train-venvs: making $dir from $req ($("$python" --version))"
  rm -rf "$dir"
  "$python" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$req"
  if [[ ${#built[@]} -gt 0 ]]; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      --no-build-isolation "${built[@]}"
  fi
  "$dir/bin/python" -c "$check" ||
    { echo "setup-train-venvs: $dir: import check failed after installing $req" >&2; return 1; }
  echo "setup-train-venvs: $dir ready"
}

env_onmt() {
  make_env onmt 'import torch, onmt, onmt.bin.train, onmt.bin.translate; print("OpenNMT-py", onmt.__version__, "torch", torch.__version__)'
}
env_joey() {
  make_env joey 'import torch, joeynmt, joeynmt.training; print("JoeyNMT", joeynmt.__version__, "torch", torch.__version__)'
}
# fairseq 0.9.0: the last release that runs on Debian 12's Python 3.11 (0.10 and 0.12 fail at
# import: their dataclass configurations have mutable defaults, which 3.11 refuses). Its
# fairseq-preprocess wrote the same dictionaries and .bin/.idx files as fairseq-fixed 0.12.3.1's
# (a fork of 0.12 for Python 3.11) on a test corpus.
env_fairseq() {
  make_env fairseq 'import torch, sentencepiece, fairseq, fairseq_cli.preprocess; print("fairseq", fairseq.__version__, "torch", torch.__version__)' fairseq==0.9.0
}
env_score() {
  make_env score 'import sacrebleu, sentencepiece; print("sacreBLEU", sacrebleu.__version__, "sentencepiece", sentencepiece.__version__)'
}

case ${1:-} in
  onmt) env_onmt ;;
  joey) env_joey ;;
  score) env_score ;;
  fairseq) env_fairseq ;;
  all) status=0; env_score || status=1; env_onmt || status=1; env_joey || status=1; exit $status ;;
  *) echo "usage: scripts/peers/setup-train-venvs.sh onmt|joey|score|fairseq|all" >&2; exit 2 ;;
esac
