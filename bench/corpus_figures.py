#!/usr/bin/python3
"""Issue 65's corpus figures: what a person reads before and after limits were set apart.

    /usr/bin/python3 bench/corpus_figures.py BEFORE_SHAPELAB AFTER_SHAPELAB

The corpus: the hand-written programs in bench/corpus/*.shl (realistic shape code) and the
random programs of tests/data/numpy_programs.jsonl and numpy_programs_focus.jsonl (made by
scripts/make_program_oracle.py; their :eval lines are dropped). Each program is run by both
binaries (`run --json`) with `:explain NAME` appended for every name it assigns. Printed:
the share of statements whose status is runtime-check before and valid after, and the share of
violating points (`:explain`'s, where a statement can fail) with every size at most 16.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)")


def corpus():
    for path in sorted((ROOT / "bench" / "corpus").glob("*.shl")):
        yield "hand-written", path.name, path.read_text()
    for name in ("numpy_programs.jsonl", "numpy_programs_focus.jsonl"):
        lines = (ROOT / "tests" / "data" / name).read_text().splitlines()[1:]
        for k, line in enumerate(lines):
            program = json.loads(line)["program"]
            yield "random", f"{name}:{k}", "\n".join(l for l in program.splitlines() if not l.startswith(":"))


def names_of(program):
    out = []
    for line in program.splitlines():
        m = ASSIGN.match(line)
        if m and not line.lstrip().startswith(("param", "assume", "mode")):
            out += [n.strip() for n in m.group(1).split(",")]
    return list(dict.fromkeys(out))


def run(shapelab, text):
    with tempfile.NamedTemporaryFile("w", suffix=".shl") as f:
        f.write(text)
        f.flush()
        out = subprocess.run([shapelab, "run", "--json", f.name], capture_output=True, text=True, timeout=600)
    statements, explained = {}, {}
    for line in out.stdout.splitlines():
        try:
            j = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "assign" in j and "status" in j:
            statements[(j["line"], j["assign"])] = j["status"]
        if j.get("command") == "explain" and "status" in j:
            explained[j["name"]] = j
    return statements, explained


def small(point):
    return all(int(v) <= 16 for v in point.values())


def main(before, after):
    figures = {}
    for part, name, program in corpus():
        text = program + "\n" + "\n".join(f":explain {n}" for n in names_of(program)) + "\n"
        (sb, eb), (sa, ea) = run(before, text), run(after, text)
        f = figures.setdefault(part, {"programs": 0, "statements": 0, "rc_before": 0, "rc_to_valid": 0,
                                      "points_before": 0, "small_before": 0, "points_after": 0, "small_after": 0})
        f["programs"] += 1
        for key, status in sa.items():
            f["statements"] += 1
            if sb.get(key) == "runtime-check":
                f["rc_before"] += 1
                f["rc_to_valid"] += status == "valid"
        for explained, side in ((eb, "before"), (ea, "after")):
            for j in explained.values():
                if j.get("violating"):
                    f["points_" + side] += 1
                    f["small_" + side] += small(j["violating"])
    total = {k: sum(f[k] for f in figures.values()) for k in next(iter(figures.values()))}
    for part, f in list(figures.items()) + [("all", total)]:
        share = lambda a, b: f"{a}/{b} = {100.0 * a / b:.1f}%" if b else f"{a}/0"
        print(f"{part}: {f['programs']} programs, {f['statements']} statements")
        print(f"  runtime-check before, valid after: {share(f['rc_to_valid'], f['statements'])} of the statements"
              f" ({share(f['rc_to_valid'], f['rc_before'])} of those that were runtime-check)")
        print(f"  violating points with every size <= 16: before {share(f['small_before'], f['points_before'])},"
              f" after {share(f['small_after'], f['points_after'])}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
