#!/bin/sh
# CI compatibility step: builds Highway 1.4.0 from ../shared/deps (or
# $HWY_TARBALL) into build-compat-hwy/, then builds and runs every synetk test
# and example against it.
#
# The tests compile a trimmed target list to fit CI's time: AVX3_SPR (Highway
# 1.4's target for Sapphire Rapids and later Intel CPUs, which CI's machines
# are), AVX2 and the SSE2 baseline. AVX3_ZEN4 takes the same synetk paths as
# AVX3_SPR (scripts/build_cost.sh compiles it per target); AVX3, AVX3_DL, SSE4
# and SSSE3 run the same synetk code in the Highway 1.0.3 build (the README
# command). Set SYNETK_COMPAT_HWY_TARGETS to another HWY_DISABLED_TARGETS
# expression to change that ('0' compiles every target).
#
# Usage: sh scripts/compat_hwy.sh   (NINJA_JOBS=1 builds with one job)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=${HWY_TARBALL:-$root/../shared/deps/highway-1.4.0.tar.gz}
if [ ! -f "$tarball" ]; then
  echo "compat_hwy: SKIPPED: no Highway tarball at $tarball (set HWY_TARBALL)"
  exit 0
fi
work=$root/build-compat-hwy
jobs=${NINJA_JOBS:+-j$NINJA_JOBS}
disabled=${SYNETK_COMPAT_HWY_TARGETS:-"(HWY_AVX3_ZEN4|HWY_AVX3_DL|HWY_AVX3|HWY_SSE4|HWY_SSSE3)"}

# 1. Highway, the library only, installed under $work/prefix.
if [ ! -f "$work/prefix/lib/pkgconfig/libhwy.pc" ]; then
  rm -rf "$work/hwy-src" "$work/hwy-build"
  mkdir -p "$work/hwy-src"
  tar xzf "$tarball" -C "$work/hwy-src" --strip-components=1
  cmake -S "$work/hwy-src" -B "$work/hwy-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$work/prefix" -DCMAKE_INSTALL_LIBDIR=lib \
    -DHWY_ENABLE_TESTS=OFF -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF \
    -DBUILD_TESTING=OFF >/dev/null
  ninja -C "$work/hwy-build" $jobs install >/dev/null
fi
version=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --modversion libhwy)
echo "compat_hwy: Highway $version in $work/prefix"

# 2. synetk's tests and examples against it. Highway's include directory comes
# before /usr/include, so its headers replace a system-installed Highway's.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
export LD_LIBRARY_PATH="$work/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
args="-Dbench=false -Ddev_cpp_args=-DHWY_DISABLED_TARGETS=$disabled"
if [ -d "$work/build" ]; then
  meson setup --reconfigure "$work/build" "$root" $args
else
  meson setup "$work/build" "$root" $args
fi
ninja -C "$work/build" $jobs
meson test -C "$work/build" --no-rebuild --print-errorlogs -v
# Highway 1.0.3 has no SSE2 target: seeing it run shows the tests took the new headers.
if ! grep -q 'SIMD targets exercised:.* SSE2' "$work/build/meson-logs/testlog.txt"; then
  echo "compat_hwy: FAILED: the tests did not run Highway $version's SSE2 target"
  exit 1
fi
echo "compat_hwy: every test passes against Highway $version"
