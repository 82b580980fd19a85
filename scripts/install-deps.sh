#!/usr/bin/env bash
# Installs every Debian 12 package nmt needs to build, test and benchmark, and any packages named as
# arguments. Idempotent: when all packages are present it returns in a second without touching apt.
# Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev libopenblas0-openmp          # LibTorch 1.13 (CPU) and a fast BLAS for it
  libtcmalloc-minimal4                      # nmt's malloc (cmake/NmtDependencies.cmake says why)
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libsentencepiece-dev libutf8proc-dev
  libicu-dev libxml2-dev                    # sentence segmentation (ICU) and HTML (libxml2's parser)
  zlib1g-dev                                # gzip-compressed corpora
  libboost-dev                              # nmt serve's HTTP layer (Boost.Beast, header-only)
  libcpp-httplib-dev                        # the serve tests' HTTP client (cpp-httplib 0.11)
  libgloo-dev                               # headers of c10d's Gloo process group (distributed)
  libgtest-dev libpng-dev                   # libpng decodes the browser tests' screenshots
  clang-14 libclang-rt-14-dev llvm-14       # scripts/sanitize.sh, scripts/fuzz.sh: ASan, UBSan, libFuzzer
  python3 python3-sentencepiece             # tests: cleaning against the reference script, .model files
  curl unzip zip                            # scripts/fetch-tatoeba.sh and its test
  wrk                                       # scripts/bench-serve.sh (load test of nmt serve)
)
if [[ "${NMT_WITH_BROWSER:-1}" == 1 ]]; then
  packages+=(chromium)                      # rendering tests of the HTML pictures
fi
packages+=("$@")
if [[ "${NMT_WITH_REFERENCE:-0}" == 1 ]]; then
  packages+=(python3-torch)                 # scripts/bench-vs-notebook.sh runs the notebook
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
