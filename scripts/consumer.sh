#!/bin/sh
# Builds tests/consumer as an engine would: with Meson, synetk as a
# subproject and a `meson install`ed copy found with pkg-config; with CMake
# (tests/consumer/cmake), the installed copy found with find_package(synetk)
# and the source tree added with add_subdirectory (Highway from pkg-config).
# Usage: sh scripts/consumer.sh [meson|cmake]   (default: both)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
which=${1:-all}

# The installed copy: headers, synetk.pc and synetkConfig.cmake under a prefix.
install_copy() {
  meson setup "$work/build-install" "$root" --prefix "$work/prefix" -Dtests=false -Dexamples=false -Dbench=false
  meson install -C "$work/build-install"
}

meson_consumers() {
  # 1. Subproject: a copy of the repository under subprojects/synetk.
  cp -r "$root/tests/consumer" "$work/consumer"
  mkdir -p "$work/consumer/subprojects/synetk"
  (cd "$root" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$work/consumer/subprojects/synetk"
  meson setup "$work/build-sub" "$work/consumer" --force-fallback-for=synetk
  ninja -C "$work/build-sub"
  meson test -C "$work/build-sub" --print-errorlogs -v

  # 2. Installed: synetk.pc found with pkg-config.
  install_copy
  pcdir=$(dirname "$(find "$work/prefix" -name synetk.pc | head -n 1)")
  rm -rf "$work/consumer/subprojects"
  PKG_CONFIG_PATH="$pcdir" meson setup "$work/build-pc" "$work/consumer" -Duse_installed=true
  ninja -C "$work/build-pc"
  meson test -C "$work/build-pc" --print-errorlogs -v
}

cmake_consumers() {
  [ -d "$work/prefix" ] || install_copy
  # 3. CMake, installed: find_package(synetk) finds synetkConfig.cmake beside
  # synetk.pc; Highway through its own CMake package.
  cmake -S "$root/tests/consumer/cmake" -B "$work/build-cmake-installed" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix"
  cmake --build "$work/build-cmake-installed"
  (cd "$work/build-cmake-installed" && ctest --output-on-failure)

  # 4. CMake, add_subdirectory of the source tree (as FetchContent does), with
  # Highway's CMake package hidden so that libhwy comes from pkg-config.
  cmake -S "$root/tests/consumer/cmake" -B "$work/build-cmake-subdir" \
    -DCMAKE_BUILD_TYPE=Release -DSYNETK_SOURCE_DIR="$root" -DCMAKE_DISABLE_FIND_PACKAGE_hwy=ON
  cmake --build "$work/build-cmake-subdir"
  (cd "$work/build-cmake-subdir" && ctest --output-on-failure)
}

case $which in
  meson) meson_consumers; echo "consumer builds: Meson subproject and pkg-config pass" ;;
  cmake) cmake_consumers; echo "consumer builds: CMake find_package and add_subdirectory pass" ;;
  all)
    meson_consumers
    cmake_consumers
    echo "consumer builds: Meson (subproject, pkg-config) and CMake (find_package, add_subdirectory) pass"
    ;;
  *) echo "usage: sh scripts/consumer.sh [meson|cmake]" >&2; exit 2 ;;
esac
