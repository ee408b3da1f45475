#!/usr/bin/env python3
"""Turns simd_peer_bench JSON output into the peer table of docs/peer-simd.md.

Usage: python3 scripts/peer_table.py peer.json > table.md
Prints the table (synetk/memcpy, Simd/memcpy, speedup per case, in the
benchmark's order) and a summary: geometric means over all cases and by
family, and the cases below 0.95x.
"""
import json
import math
import re
import sys

QUANT = {0: "dequantize", 1: "quantize", 2: "concat", 3: "scale", 4: "shuffle 0", 5: "shuffle 1"}
POOL = {0: "max fp32", 1: "average fp32", 2: "max bf16", 3: "max u8"}


def args(name):
    return {k: int(v) for k, v in re.findall(r"(\w+):(-?\d+)", name)}


def plane(hw):
    side = math.isqrt(hw)
    return f"{side}x{side}" if side * side == hw else str(hw)


def label(name):
    a = args(name)
    fmt = "NHWC" if a.get("nhwc") else "NCHW"
    if name.startswith("BM_FusedVsSimd"):
        return "fused", f"fused {a['type']} {fmt} {a['C']}x{plane(a['HW'])}"
    if name.startswith("BM_NormalizeVsSimd"):
        v = "V1 across" if a["version"] == 5 else f"V{a['version']}"
        return "normalize", f"normalize {v} {fmt} {a['C']}x{plane(a['HW'])}"
    if name.startswith("BM_QuantVsSimd"):
        return "quantization", f"quant {QUANT[a['fn']]} {fmt} {a['C']}x{plane(a['HW'])}"
    if name.startswith("BM_PoolingVsSimd"):
        return "pooling", (f"pool {POOL[a['kind']]} {fmt} {a['C']}x{a['HW']}x{a['HW']} "
                           f"{a['k']}x{a['k']} s{a['s']} p{a['p']}")
    if name.startswith("BM_GatherVsSimd"):
        kind = "uniform rows" if a["kind"] else "random"
        const = " const" if a["const"] else ""
        return "gather", (f"gather {a['outer']}x{a['src']}x{a['inner']} idx {a['idx']} "
                          f"{kind}{const}")
    return "other", name


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def main(path):
    with open(path) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if b.get("run_type") != "aggregate"]
    families = {}
    print("| case | synetk/memcpy | Simd/memcpy | speedup |")
    print("|---|---:|---:|---:|")
    for b in rows:
        fam, text = label(b["name"])
        families.setdefault(fam, []).append(b["speedup"])
        print(f"| {text} | {b['synetk_memcpy']:.2f} | {b['simd_memcpy']:.2f} | {b['speedup']:.2f} |")
    speedups = [b["speedup"] for b in rows]
    print()
    print(f"All {len(rows)} cases: geomean speedup {geomean(speedups):.2f}; geomean ratio to "
          f"memcpy {geomean([b['synetk_memcpy'] for b in rows]):.2f} (synetk), "
          f"{geomean([b['simd_memcpy'] for b in rows]):.2f} (Simd).")
    parts = []
    for fam, v in families.items():
        positive = [x for x in v if x > 0]
        parts.append(f"{fam} {geomean(v):.2f} ({min(positive):.2f}-{max(positive):.3g}, {len(v)})")
    print("By family, geomean speedup (range, cases): " + ", ".join(parts) + ". "
          f"{sum(1 for s in speedups if s < 0.95)} cases are below 0.95x.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
