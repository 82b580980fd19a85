#!/usr/bin/env bash
# Run on a Debian 12 machine (with network access to its apt mirror): downloads the Debian packages
# the offline GPU machine lacks and unpacks them into .deps/root, packed into .deps.tar.xz, which
# `run --carry .deps.tar.xz` brings along (the tree and .deps unpacked exceed the 64 MiB that
# travel; scripts/gpu-bench.sh unpacks it there). The libraries need only libc and libstdc++
# (cpp-httplib also OpenSSL and Brotli, which come along). Also copies the shared Tatoeba data and
# the reference script into .deps/shared so benchmarks can run there. .deps is git-ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libcli11-dev nlohmann-json3-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
          libsentencepiece-dev libsentencepiece0 libutf8proc-dev libutf8proc2 libgtest-dev
          libicu-dev libicu72 libxml2-dev libxml2
          libpng-dev libpng16-16 zlib1g-dev libgloo-dev
          libcpp-httplib-dev libcpp-httplib0.11 libssl-dev libssl3 libbrotli-dev libbrotli1
          libboost1.74-dev libtcmalloc-minimal4)
rm -rf .deps/debs .deps/root
mkdir -p .deps/debs .deps/root
(cd .deps/debs && apt-get download "${packages[@]}")
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
rm -rf .deps/debs
# What travels to the GPU machine is limited (64 MiB with the tree): drop documentation and the
# static libraries nmt does not link (GoogleTest's are the only ones it does).
rm -rf .deps/root/usr/share/doc
# Boost's headers are 160 MB: keep those nmt serve's HTTP layer includes (about 8 MB, 1,250
# files), as the compiler itself lists them.
c++ -std=c++17 -I.deps/root/usr/include -Iinclude -Isrc -M src/serve/http_server.cpp |
  tr ' \\' '\n\n' | grep '/boost/' | xargs realpath | sort -u > .deps/boost-used.txt
find "$(realpath .deps/root/usr/include/boost)" -type f | sort | comm -23 - .deps/boost-used.txt |
  xargs rm -f
rm .deps/boost-used.txt
find .deps/root -name '*.a' ! -name 'libgtest*' ! -name 'libgmock*' -delete
shared=${NMT_SHARED_DIR:-../shared}
if [[ -d "$shared" ]]; then
  mkdir -p .deps/shared/data/tatoeba-en-es .deps/shared/reference
  cp "$shared/data/tatoeba-en-es/eng-spa.tsv" .deps/shared/data/tatoeba-en-es/
  cp "$shared/reference/seed_transformer.py" .deps/shared/reference/
fi
tar cJf .deps.tar.xz .deps
du -sh .deps .deps.tar.xz
