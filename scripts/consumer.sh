#!/bin/sh
# Builds tests/consumer twice, as an engine would: with synetk as a Meson
# subproject, and against a `meson install`ed copy found with pkg-config.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Subproject: a copy of the repository under subprojects/synetk.
cp -r "$root/tests/consumer" "$work/consumer"
mkdir -p "$work/consumer/subprojects/synetk"
(cd "$root" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$work/consumer/subprojects/synetk"
meson setup "$work/build-sub" "$work/consumer" --force-fallback-for=synetk
ninja -C "$work/build-sub"
meson test -C "$work/build-sub" --print-errorlogs -v

# 2. Installed: headers and synetk.pc under a prefix, found with pkg-config.
meson setup "$work/build-install" "$root" --prefix "$work/prefix" -Dtests=false -Dexamples=false -Dbench=false
meson install -C "$work/build-install"
pcdir=$(dirname "$(find "$work/prefix" -name synetk.pc | head -n 1)")
rm -rf "$work/consumer/subprojects"
PKG_CONFIG_PATH="$pcdir" meson setup "$work/build-pc" "$work/consumer" -Duse_installed=true
ninja -C "$work/build-pc"
meson test -C "$work/build-pc" --print-errorlogs -v
echo "consumer builds: subproject and installed copy both pass"
