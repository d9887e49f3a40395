#!/usr/bin/env python3
"""The layer table (DESIGN §2): each top-level folder depends only on the layers below it, and
only symbolic/ includes isl or GMP headers. Reads every source's #include lines.

    layers.py ROOT      exit 1, one line per include that breaks the table

KNOWN lists the includes that break it (none today): a new one fails, and one that no longer
exists must leave the list.
"""
import pathlib
import re
import sys

ORDER = ["support", "symbolic", "shape", "ops", "rewrite", "interp", "lang", "proptests", "driver", "python"]
RANK = {layer: i for i, layer in enumerate(ORDER)}
RANK["python"] = RANK["driver"]  # the two top layers, side by side
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
# (the including file, the included file): known breaks of the table.
KNOWN: set = set()


def main(root):
    root = pathlib.Path(root)
    found, seen = [], set()
    for path in sorted(root.glob("*/**/*")):
        rel = path.relative_to(root)
        layer = rel.parts[0]
        if layer not in RANK or path.suffix not in (".h", ".cpp") or "tests" in rel.parts:
            continue
        for inc in INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace")):
            if (inc.startswith("isl/") or inc.startswith("gmp")) and layer != "symbolic":
                found.append(f"{rel}: includes {inc}; only symbolic/ includes isl or GMP headers")
            top = inc.split("/")[0]
            if top not in RANK or "/" not in inc or RANK[top] <= RANK[layer]:
                continue
            key = (str(rel), inc)
            seen.add(key)
            if key not in KNOWN:
                found.append(f"{rel}: includes {inc}, a layer above {layer}/ (DESIGN §2)")
    for key in sorted(KNOWN - seen):
        found.append(f"{key[0]} no longer includes {key[1]}: take it off the known breaks")
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
