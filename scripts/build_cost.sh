#!/bin/sh
# What synetk costs an engine to compile: CPU time, peak memory and code size
# of small TUs that each instantiate one layer family's functor, with every
# default Highway target and per target; and the compile-once mode's
# declarations-only TU. One compiler at a time (-j1), -O2.
#
# Usage: sh scripts/build_cost.sh [OUTDIR]
#   CXX (default g++), CXXFLAGS (added to every compile; e.g.
#   -I/opt/hwy/include for another Highway), BUILD_COST_PER_TARGET=0 to skip
#   the per-target rows.
# Prints a Markdown table: family, targets, CPU s (user+sys), peak MB, code KB
# (the object's .text sections).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cxx=${CXX:-g++}
flags="-std=c++20 -O2 -I$root/include ${CXXFLAGS:-}"

# family: the explicit instantiations of its TU
families="fused:template struct synetk::FusedLayer3<float, synetk::Nchw>;
pooling:template struct synetk::PoolingMax<float, synetk::Nchw>;
quant:template struct synetk::QuantizeLinear<float, uint8_t>;
quant_scale:template struct synetk::QuantizedScale<synetk::Nchw>;
gather:template class synetk::GatherElements<float, int64_t>;
normalize:template struct synetk::NormalizeV1<float, synetk::Nchw>;"

write_tu() {  # name, header, body
  printf '#include <cstdint>\n#include "%s"\n%s\n' "$2" "$3" > "$out/$1.cc"
}

measure() {  # label, targets label, source, extra flags
  obj="$out/$1.o"
  # shellcheck disable=SC2086
  /usr/bin/time -f '%U %S %M' -o "$out/time.txt" $cxx $flags $4 -c "$3" -o "$obj"
  read -r user sys kb < "$out/time.txt"
  text=$(size -A "$obj" | awk '$1 ~ /^\.text/ { s += $2 } END { print s + 0 }')
  awk -v l="$1" -v t="$2" -v u="$user" -v s="$sys" -v kb="$kb" -v text="$text" \
    'BEGIN { printf "| %s | %s | %.1f | %d | %d |\n", l, t, u + s, kb / 1024, text / 1024 }'
}

# The Highway targets this compiler builds by default (synetk.h's list).
all_targets="AVX10_2 AVX3_SPR AVX3_ZEN4 AVX3_DL AVX3 AVX2 SSE4 SSSE3 SSE2 EMU128 SCALAR"
# shellcheck disable=SC2086
targets=$(for t in $all_targets; do
    printf '#if defined(HWY_%s) && (HWY_TARGETS & HWY_%s)\n%s\n#endif\n' "$t" "$t" "$t"
  done | { printf '#define HWY_WANT_AVX3_DL\n#include <hwy/highway.h>\n'; cat; } |
  $cxx $flags -E -P -x c++ - | grep -E '^[A-Z0-9_]+$' | tr '\n' ' ')
echo "compiler: $($cxx --version | head -n 1); HWY_TARGETS = $targets"
echo
echo '| TU | targets | CPU s | peak MB | code KB |'
echo '|---|---|---|---|---|'

echo "$families" | while IFS=: read -r family body; do
  write_tu "$family" synetk/synetk.h "$body"
  measure "$family" all "$out/$family.cc" ""
  measure "$family-static" "static only" "$out/$family.cc" -DHWY_COMPILE_ONLY_STATIC
done

# Every family in one TU, all targets, then one target beside the static one.
all_body=$(echo "$families" | cut -d: -f2-)
write_tu all synetk/synetk.h "$all_body"
measure all all "$out/all.cc" ""
measure all-static "static only" "$out/all.cc" -DHWY_COMPILE_ONLY_STATIC
if [ "${BUILD_COST_PER_TARGET:-1}" != 0 ]; then
  for t in AVX10_2 AVX3_SPR AVX3_ZEN4 AVX3_DL AVX3 AVX2 SSE4 SSSE3; do
    # Every other target disabled but the baseline (SSE2, EMU128 or SCALAR).
    others=$(for o in $targets; do
      case "$o" in "$t" | SSE2 | EMU128 | SCALAR) ;; *) printf 'HWY_%s|' "$o" ;; esac; done)
    case " $targets " in *" $t "*) ;; *) continue ;; esac
    measure "all-$t" "$t + static" "$out/all.cc" "-DHWY_DISABLED_TARGETS=(${others%|})"
  done
fi

# Compile-once mode: the six functors' front-ends instantiated in a TU that
# includes only synetk/declarations.h (their kernels stay in the engine TU).
write_tu decl synetk/declarations.h "$all_body"
measure declarations "none (declarations)" "$out/decl.cc" ""
echo
echo "objects and sources in $out"
