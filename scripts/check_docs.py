#!/usr/bin/env python3
"""Keeps the API reference from drifting from the headers.

Every public functor/class in include/synetk/ops/*.h (outside the impl/detail
namespaces) must carry a doc comment and be named in docs/*.md, and every
synetk::simd entry point in include/synetk/compat/*.h must be named in docs/
or README.md. Exits 1 and lists what is missing.
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

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("docs: every public functor and synetk::simd entry point is documented")
