#!/bin/sh
# Builds the API reference (Doxygen HTML) from the public headers' comments.
# Usage: sh scripts/doxygen.sh [output-dir]   (default: build-doxygen)
# Writes <output-dir>/html/index.html. Fails, listing them, on any Doxygen
# warning: an undocumented public entity, parameter or return value, or a
# documentation error. Needs doxygen (Debian: apt-get install doxygen).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build-doxygen}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log="$out/warnings.log"
rm -f "$log"
cd "$root"
{
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = $out"
  echo "WARN_LOGFILE = $log"
} | doxygen -
if [ -s "$log" ]; then
  cat "$log" >&2
  echo "doxygen: $(wc -l < "$log") warning line(s); see $log" >&2
  exit 1
fi
echo "doxygen: $out/html/index.html, no warnings"
