#!/usr/bin/env python3
"""Keeps the kernels' structure from getting worse.

In include/synetk/:
- no function body longer than 120 lines, except the ones listed in
  LONG_FUNCTIONS below, each at most as long as listed there;
- target conditionals (`#if ... HWY_TARGET`, `SYNETK_IS_X86_*`,
  `SYNETK_HAS_AVX512`, or `HWY_TARGET ==`/`!=` in any expression) and raw x86
  intrinsics (`_mm*_`) only in detail/ (the
  primitives) and, outside it, at most as many times as TARGET_CODE lists.
  A kernel may still compile a path where a named capability of
  detail/target_caps.h holds (SYNETK_HAS_VBMI_PERMUTE, SYNETK_HAS_BLOCK_PACKS,
  SYNETK_HAS_MULTI_LANE, ...): those say what the path needs, not which
  target it is, and are not counted.

The lists hold what the tree has today and may only shrink: a function split
below the limit, or target code moved into a named primitive, is removed from
them (the check says so). A new long function or new target code elsewhere
fails. Run with --report to print the current figures.
Exits 1 and lists what is wrong.
"""
import bisect
import glob
import os
import re
import sys

LIMIT = 120

# (file, function) -> lines today.
LONG_FUNCTIONS = {}

# Target code belongs in named primitives, in detail/ (each with its generic
# Highway body beside the per-target ones). Outside detail/:
# file -> (target conditionals, raw intrinsic lines) today.
TARGET_CODE = {}

TARGET_IF = re.compile(r"^\s*#\s*(?:if|elif)\b.*(?:HWY_TARGET\b|SYNETK_IS_X86_|SYNETK_HAS_AVX512)")
# A target named in a constant expression (if constexpr, a capability
# constant) counts as a conditional too.
TARGET_EXPR = re.compile(r"\bHWY_TARGET\s*[!=]=")
INTRINSIC = re.compile(r"\b_mm(?:256|512)?_\w+\s*\(")


def strip(text):
    """Blanks comments, string and character literals, keeping line breaks."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """Yields (name, first line, lines) of each function body at namespace or
    class scope, from the line of its name to its closing brace (lambdas and
    blocks inside count towards their function)."""
    code = strip(text)
    # Preprocessor lines take no part in scopes.
    code = "\n".join("" if l.lstrip().startswith("#") else l for l in code.split("\n"))
    starts = [0] + [m.end() for m in re.finditer("\n", code)]
    line_of = lambda pos: bisect.bisect_right(starts, pos)
    stack = []  # (kind, name, first line): 'ns', 'class', 'func' or 'block'
    header_start = 0
    for i, c in enumerate(code):
        outer = not stack or stack[-1][0] in ("ns", "class")
        if c == ";" and outer:
            header_start = i + 1
        elif c == "{":
            header = code[header_start:i]
            if not outer:
                stack.append(("block", None, 0))
            elif re.search(r"\bnamespace\b", header):
                stack.append(("ns", None, 0))
            elif re.search(r"\b(struct|class|union|enum)\b[^()]*$", header):
                stack.append(("class", None, 0))
            elif "(" in header and not header.rstrip().endswith("="):
                names = [m for m in re.finditer(r"([~\w]+)\s*\(", header.split("->")[0])
                         if m.group(1) not in ("HWY_ATTR", "noexcept", "decltype", "alignas",
                                               "sizeof", "requires")]
                pos = header_start + (names[0].start() if names else 0)
                stack.append(("func", names[0].group(1) if names else "?", line_of(pos)))
            else:
                stack.append(("block", None, 0))
        elif c == "}" and stack:
            kind, name, first = stack.pop()
            if kind == "func":
                yield name, first, line_of(i) - first + 1
            if not stack or stack[-1][0] in ("ns", "class"):
                header_start = i + 1


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if args:
        root = args[0]
    report = "--report" in sys.argv
    inc = os.path.join(root, "include", "synetk")
    problems = []
    seen = set()
    for path in sorted(glob.glob(os.path.join(inc, "**", "*.h"), recursive=True)):
        rel = os.path.relpath(path, inc)
        text = open(path).read()
        for name, first, n in functions(text):
            key = (rel, name)
            if n <= LIMIT:
                continue
            if report:
                print(f"{rel}:{first}: {name} {n} lines")
            allowed = LONG_FUNCTIONS.get(key)
            if allowed is None:
                problems.append(f"{rel}:{first}: {name} has {n} lines (at most {LIMIT})")
            elif n > allowed:
                problems.append(f"{rel}:{first}: {name} grew to {n} lines (listed: {allowed})")
            seen.add(key)
        if rel.startswith("detail/"):
            continue
        ifs = sum(1 for l in text.split("\n") if TARGET_IF.match(l) or TARGET_EXPR.search(l))
        intr = sum(1 for l in strip(text).split("\n") if INTRINSIC.search(l))
        if report and (ifs or intr):
            print(f"{rel}: {ifs} target conditionals, {intr} raw intrinsic lines")
        allowed_ifs, allowed_intr = TARGET_CODE.get(rel, (0, 0))
        if ifs > allowed_ifs:
            problems.append(f"{rel}: {ifs} target conditionals (listed: {allowed_ifs}); "
                            "put target code in a named primitive")
        if intr > allowed_intr:
            problems.append(f"{rel}: {intr} raw intrinsic lines (listed: {allowed_intr}); "
                            "put target code in a named primitive")
        if (ifs, intr) < TARGET_CODE.get(rel, (0, 0)) and not report:
            problems.append(f"{rel}: target code shrank to {ifs} conditionals, {intr} intrinsic "
                            "lines: lower its TARGET_CODE entry")
    for key, n in LONG_FUNCTIONS.items():
        if key not in seen and not report:
            problems.append(f"{key[0]}: {key[1]} is no longer over {LIMIT} lines: remove it "
                            "from LONG_FUNCTIONS")
    for p in problems:
        print(p)
    return 1 if problems and not report else 0


if __name__ == "__main__":
    sys.exit(main())
