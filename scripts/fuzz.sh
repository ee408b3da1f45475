#!/bin/sh
# Builds the libFuzzer targets (clang 14, ASan + UBSan) and runs each one.
# Usage: sh scripts/fuzz.sh [seconds per fuzzer, default 20]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-20}
if [ "$(id -u)" = 0 ] && ! command -v clang++-14 >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev libhwy-dev >/dev/null
fi
mkdir -p build-fuzz
# A fuzzer runs the best target the CPU has, so it compiles only the targets
# that can be the best on a CI machine: AVX2 as the static target, AVX3 and
# AVX3_DL above it. The targets below AVX2 (EMU128, SSSE3, SSE4) would never
# run here, and EMU128 under ASan alone costs more compile time than all three
# vector targets together; the ASan+UBSan unit test covers them. A CPU without
# AVX2 gets Highway's default targets.
if grep -q '^flags.* avx2' /proc/cpuinfo; then
  targets="-march=haswell -DHWY_WANT_AVX3_DL"
else
  targets=""
fi
# Compile two fuzzers at a time (CI has 2 cores; each compile is
# single-threaded), the largest source first, each next one as soon as a
# compile ends, so that the shorter ones fill the time of the longest
# (pooling); then run them one after the other.
ls -S fuzz/*_fuzz.cc | xargs -P 2 -I {} sh -c \
  "clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    $targets -Iinclude -Itests {} -o build-fuzz/\$(basename {} .cc) -lhwy"
for src in fuzz/*_fuzz.cc; do
  name=$(basename "$src" .cc)
  mkdir -p "build-fuzz/corpus-$name"
  echo "== $name: ${secs}s"
  # An input that runs for a minute is a hang (the slowest take milliseconds):
  # -timeout makes it a timeout-* failure well within the run's time.
  "./build-fuzz/$name" -max_total_time="$secs" -timeout=60 -print_final_stats=1 \
    "build-fuzz/corpus-$name" 2>&1 |
    grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done" || true
  # A crash leaves a crash-* (or leak-*, timeout-*) file; fail the script on
  # any of them, pattern by pattern (one `ls` of all three patterns fails
  # unless every pattern matches, and would leave crashes unreported).
  for f in crash-* leak-* timeout-*; do
    if [ -e "$f" ]; then echo "fuzzer $name found a failure: $f"; exit 1; fi
  done
done
