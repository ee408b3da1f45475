#!/bin/sh
# CI compatibility step: synetk beyond Debian 12's default toolchain
# (docs/building.md). One function per section:
#   clang_catch2  every test and example built with clang++-14 at
#                 warning_level=2 with -Werror, the tests with Catch2 3.7.1's
#                 single-file distribution from ../shared/deps (Catch2 2 with
#                 a message if it is absent); then every test runs.
#   cmake_consumers  the CMake consumers (scripts/consumer.sh cmake).
# (Highway 1.4.0: scripts/compat_hwy.sh.)
#
# To fit CI's time the clang build compiles three targets: the baseline
# (SCALAR or EMU128), AVX2 and AVX3_DL (AVX-512 with VBMI); the README
# command's GCC build covers SSSE3, SSE4 and AVX3. Set
# SYNETK_COMPAT_TARGETS to another HWY_DISABLED_TARGETS expression to change
# that ('0' compiles every target).
#
# Usage: sh scripts/compat.sh [section...]   (default: every section)
# (NINJA_JOBS=1 builds with one job.)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
catch2=${CATCH2_AMALGAMATED:-$root/../shared/deps/catch2-3.7.1}
disabled=${SYNETK_COMPAT_TARGETS:-"(HWY_SSSE3|HWY_SSE4|HWY_AVX3)"}
jobs=${NINJA_JOBS:+-j$NINJA_JOBS}

# setup DIR ARGS...: meson setup, or reconfigure an existing build directory.
setup() {
  dir=$1
  shift
  if [ -d "$dir" ]; then
    meson setup --reconfigure "$dir" "$@"
  else
    meson setup "$dir" "$@"
  fi
}

clang_catch2() {
  if ! command -v clang++-14 >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 >/dev/null
    else
      echo "compat: clang++-14 is missing (apt-get install clang-14)" >&2
      return 1
    fi
  fi
  catch2_opt=
  if [ -f "$catch2/catch_amalgamated.cpp" ] && [ -f "$catch2/catch_amalgamated.hpp" ]; then
    catch2_opt=-Dcatch2_amalgamated=$catch2
    echo "compat: Catch2 3 from $catch2"
  else
    echo "compat: SKIPPED Catch2 3: no catch_amalgamated.hpp/.cpp in $catch2" \
         "(set CATCH2_AMALGAMATED); the clang build uses Catch2 2"
  fi
  CXX=clang++-14 setup build-compat-clang -Dbench=false -Dwarning_level=2 -Dwerror=true \
    -Dcatch2_amalgamated= $catch2_opt "-Ddev_cpp_args=-DHWY_DISABLED_TARGETS=$disabled"
  ninja -C build-compat-clang $jobs
  # -v shows each test's output: the targets exercised and the random seed.
  meson test -C build-compat-clang --print-errorlogs -v
}

cmake_consumers() {
  sh scripts/consumer.sh cmake
}

sections=${*:-clang_catch2 cmake_consumers}
for section in $sections; do
  case $section in
    clang_catch2|cmake_consumers) echo "compat: $section"; $section ;;
    *) echo "compat: no section '$section' (clang_catch2, cmake_consumers)" >&2; exit 2 ;;
  esac
done
echo "compat: $sections passed"
