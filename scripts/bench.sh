#!/bin/sh
# Builds and runs the examples and a short benchmark (a few seconds) on a fresh
# Debian 12 machine (run as root), then prints the table of ratios to memcpy.
# Usage: sh scripts/bench.sh          short run: one headline case per layer
#        sh scripts/bench.sh --full   every case; writes docs/performance-table.md
#                                     and docs/performance.png (needs python3-matplotlib)
set -eu
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    g++ meson ninja-build pkg-config libhwy-dev catch2 libbenchmark-dev python3 >/dev/null
  if [ "${1:-}" = --full ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null
  fi
fi
if [ -d build-release ]; then
  meson setup --reconfigure build-release -Dtests=false
else
  meson setup build-release -Dtests=false
fi
ninja -C build-release
./build-release/examples/fused_demo
./build-release/examples/pipeline
json=build-release/bench.json
if [ "${1:-}" = --full ]; then
  ./build-release/bench/synetk_bench --benchmark_min_time=0.1 --benchmark_out="$json" \
    --benchmark_out_format=json >/dev/null
  /usr/bin/python3 scripts/plot_bench.py "$json" docs/performance.png docs/performance-table.md
  echo "wrote docs/performance-table.md and docs/performance.png"
else
  filter='BM_Fused<float>/type:(0|3|4|8|9)/C:64/HW:3136/nhwc:./target:-1|BM_Normalize<float>/ver:(1|2)/C:64|BM_Pooling<float>/avg:./C:64/HW:112|BM_GatherElements<float, int32_t>/outer:(256|64)/.*const:0|BM_Quant(Dequantize<uint8_t, float>|Quantize<float, uint8_t>|Scale<true>|Concat|Shuffle<0>)/C:64'
  ./build-release/bench/synetk_bench --benchmark_filter="$filter" --benchmark_min_time=0.02 \
    --benchmark_out="$json" --benchmark_out_format=json >/dev/null
  python3 scripts/plot_bench.py "$json" /dev/null
fi
