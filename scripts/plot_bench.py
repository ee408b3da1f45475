#!/usr/bin/env python3
"""Turns synetk_bench JSON output into docs/performance tables and a plot.

Usage: python3 scripts/plot_bench.py bench.json docs/performance.png [table.md]
Needs python3-matplotlib (Debian) for the plot; the table needs nothing.
"""
import json
import re
import sys
from collections import OrderedDict


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = []
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" or "memcpy_ratio" not in b:
            continue
        rows.append(b)
    return data.get("context", {}), rows


def family(name):
    m = re.match(r"BM_([A-Za-z]+)", name)
    return m.group(1) if m else name


def layout(name):
    if re.search(r"nhwc:1|/NHWC|Nhwc", name):
        return "NHWC"
    if re.search(r"nhwc:0|/NCHW|Nchw", name):
        return "NCHW"
    return "-"


def main():
    src, png = sys.argv[1], sys.argv[2]
    table = sys.argv[3] if len(sys.argv) > 3 else None
    context, rows = load(src)
    lines = ["| case | label | memcpy ratio | layer us | memcpy us | scalar-reference speedup |",
             "|---|---|---|---|---|---|"]
    for b in rows:
        ref = b.get("ref_speedup")
        lines.append("| `%s` | %s | %.2f | %.1f | %.1f | %s |" % (
            b["name"].replace("/manual_time", ""), b.get("label", ""), b["memcpy_ratio"],
            b["layer_us"], b["memcpy_us"], "%.0fx" % ref if ref else "-"))
    text = "\n".join(lines) + "\n"
    if table:
        with open(table, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)

    if png == "/dev/null":
        return
    # Plot: the median ratio per family and layout, with min-max whiskers.
    groups = OrderedDict()
    for b in rows:
        # Per-target and thread cases have their own tables in performance.md.
        if (b.get("label") and "PerTarget" in b["name"]) or b["name"].startswith("BM_Threads"):
            continue
        key = "%s %s" % (family(b["name"]), layout(b["name"]))
        groups.setdefault(key, []).append(b["memcpy_ratio"])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("python3-matplotlib is not installed: no plot", file=sys.stderr)
        return
    keys = list(groups)
    med = [sorted(v)[len(v) // 2] for v in groups.values()]
    lo = [m - min(v) for m, v in zip(med, groups.values())]
    hi = [max(v) - m for m, v in zip(med, groups.values())]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys)), 6))
    ax.bar(range(len(keys)), med, yerr=[lo, hi], capsize=3, color="#4c72b0")
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys, rotation=45, ha="right")
    ax.set_ylabel("memcpy time / layer time")
    ax.set_title("synetk: speed relative to memcpy (median, min-max over cases)\n%s, target %s" % (
        context.get("host_name", ""), context.get("synetk_target", "")))
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
