#!/bin/sh
# Builds and runs the example and a short benchmark on a fresh Debian 12
# machine (run as root). Usage: sh scripts/bench.sh [extra benchmark flags]
set -eu
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    g++ meson ninja-build pkg-config libhwy-dev catch2 libbenchmark-dev >/dev/null
fi
if [ -d build-release ]; then
  meson setup --reconfigure build-release -Dtests=false
else
  meson setup build-release -Dtests=false
fi
ninja -C build-release
./build-release/examples/fused_demo
./build-release/bench/synetk_bench --benchmark_min_time=0.05 "$@"
