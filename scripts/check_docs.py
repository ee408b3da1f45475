#!/usr/bin/env python3
"""Keeps the docs and comments true to the tree.

- Every public functor/class in include/synetk/ops/*.h (outside the impl/detail
  namespaces) must carry a doc comment and be named in docs/*.md, and every
  synetk::simd entry point in include/synetk/compat/*.h must be named in docs/
  or README.md.
- No numbered work step ("stop 12", "stops 41-58", "session 3") may be cited in
  docs/, include/, README.md or CHANGELOG.md: history belongs in git.
- Every markdown link and every file reference (`include/synetk/x.h`,
  `bench/foo.cc`, `scripts/x.sh`, `synetk/x.h`, ...) in docs/*.md and README.md
  must resolve to an existing file or folder.
Exits 1 and lists what is wrong.
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
docs = ""
for p in glob.glob(os.path.join(root, "docs", "*.md")) + [os.path.join(root, "README.md")]:
    with open(p) as f:
        docs += f.read()

problems = []
for header in sorted(glob.glob(os.path.join(root, "include", "synetk", "ops", "*.h"))):
    if header.endswith("-inl.h"):
        continue
    lines = open(header).read().split("\n")
    hidden = 0  # depth inside impl/detail namespaces
    for i, line in enumerate(lines):
        if re.match(r"namespace (impl|detail) \{", line):
            hidden += 1
        elif re.match(r"\}  // namespace (impl|detail)", line):
            hidden -= 1
        m = re.match(r"(?:struct|class) (\w+)(?: final)?\s*(?::|\{)", line)
        if not m or hidden:
            continue
        name = m.group(1)
        j = i - 1
        while j >= 0 and lines[j].startswith("template"):
            j -= 1
        if j < 0 or not lines[j].lstrip().startswith("//"):
            problems.append("%s: %s has no doc comment" % (os.path.relpath(header, root), name))
        if not re.search(r"\b%s\b" % re.escape(name), docs):
            problems.append("%s: %s is not in docs/" % (os.path.relpath(header, root), name))

for header in sorted(glob.glob(os.path.join(root, "include", "synetk", "compat", "*.h"))):
    for name in re.findall(r"^inline [\w\s\*]*?\b(Simd\w+)\(", open(header).read(), re.M):
        if not re.search(r"\b%s\b" % name, docs):
            problems.append("%s: %s is not in docs/" % (os.path.relpath(header, root), name))

# Numbered work steps.
STEP = re.compile(r"\b(?:stops?|sessions?)\s+\d+", re.I)
texts = [os.path.join(root, "README.md"), os.path.join(root, "CHANGELOG.md")]
for folder in ("docs", "include"):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        texts += [os.path.join(dirpath, f) for f in files
                  if f.endswith((".md", ".h", ".cc", ".txt")) or f == "Doxyfile"]
for p in sorted(texts):
    if not os.path.exists(p):
        continue
    for n, line in enumerate(open(p, encoding="utf-8", errors="replace"), 1):
        for m in STEP.finditer(line):
            problems.append("%s:%d: cites a numbered work step (%r); history belongs in git"
                            % (os.path.relpath(p, root), n, m.group(0)))

# Links and file references that must resolve.
LINK = re.compile(r"\]\(([^)\s]+)\)")
FILE_REF = re.compile(
    r"(?<![\w./-])((?:include|bench|scripts|tests|examples|docs|synetk)/[\w./+-]*[\w/])")
pages = sorted(glob.glob(os.path.join(root, "docs", "*.md"))) + [os.path.join(root, "README.md")]
for p in pages:
    here = os.path.dirname(p)
    for n, line in enumerate(open(p, encoding="utf-8"), 1):
        for m in LINK.finditer(line):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue  # an anchor in the page, or a URL
            if not os.path.exists(os.path.normpath(os.path.join(here, target))):
                problems.append("%s:%d: link to %s, which does not exist"
                                % (os.path.relpath(p, root), n, m.group(1)))
        for m in FILE_REF.finditer(line):
            ref = m.group(1)
            if ref.startswith("synetk/") and "." not in ref:
                continue  # prose ("synetk/Simd"), not a header
            path = os.path.join("include", ref) if ref.startswith("synetk/") else ref
            if not os.path.exists(os.path.join(root, path)):
                problems.append("%s:%d: refers to %s, which does not exist"
                                % (os.path.relpath(p, root), n, ref))

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("docs: every public functor and synetk::simd entry point is documented; "
      "no numbered work steps; every link and file reference resolves")
