#!/bin/sh
# The test suite again, hardened (run as root on Debian 12; CI runs it after
# scripts/test.sh):
#  1. x86 with AddressSanitizer + UndefinedBehaviorSanitizer on the targets
#     EMU128 (-DHWY_BROKEN_EMU128=0), SSE4, AVX2 and AVX3_DL (-DHWY_WANT_AVX3_DL).
#     SSSE3 and AVX3 share their code paths with SSE4 and AVX3_DL and run in the
#     plain build. Built at -O0: at -O1 GCC spent most of CI's time optimizing
#     the instrumented kernels (docs/hardening.md, Sanitizers, has the times);
#  2. aarch64 (g++ cross compiler, libhwy-dev:arm64) under qemu user mode with
#     QEMU_CPU=max, max,sve128=on and max,sve256=on, so that NEON, SVE, SVE2,
#     SVE_256 and SVE2_128 (and SCALAR) all run every test.
# Usage: sh scripts/hardening.sh [asan|arm]...   (default: both)
set -eu
cd "$(dirname "$0")/.."
steps=${*:-asan arm}

setup() {  # setup DIR ARGS...: configure DIR afresh or reconfigure it
  dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@"; else meson setup "$dir" "$@"; fi
}

for step in $steps; do
  case $step in
  asan)
    setup build-asan -Db_sanitize=address,undefined -Doptimization=0 -Dbench=false -Dexamples=false \
      "-Ddev_cpp_args=['-DHWY_BROKEN_EMU128=0','-DHWY_WANT_AVX3_DL','-DHWY_DISABLED_TARGETS=(HWY_SSSE3|HWY_AVX3)','-fno-sanitize-recover=all']"
    ninja -C build-asan
    meson test -C build-asan --print-errorlogs -v
    ;;
  arm)
    if [ "$(id -u)" = 0 ] && ! dpkg -s libhwy-dev:arm64 >/dev/null 2>&1; then
      dpkg --add-architecture arm64
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 >/dev/null
    fi
    setup build-arm --cross-file scripts/aarch64-cross.ini -Dbench=false -Dexamples=false \
      -Ddev_cpp_args=-DHWY_COMPILE_ALL_ATTAINABLE
    ninja -C build-arm
    for cpu in max max,sve128=on max,sve256=on; do
      echo "== QEMU_CPU=$cpu"
      QEMU_CPU=$cpu meson test -C build-arm --print-errorlogs -v
    done
    ;;
  *)
    echo "unknown step: $step" >&2
    exit 2
    ;;
  esac
done
