#!/bin/sh
# Builds and runs every test on a fresh Debian 12 machine (run as root).
# Usage: sh scripts/test.sh
set -eu
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    g++ meson ninja-build pkg-config libhwy-dev catch2 libbenchmark-dev doxygen >/dev/null
fi
if [ -d build-test ]; then
  meson setup --reconfigure build-test -Dbench=false
else
  meson setup build-test -Dbench=false
fi
ninja -C build-test
# -v shows each test's output, including the list of SIMD targets exercised.
meson test -C build-test --print-errorlogs -v
