"""Practitioner programs (tests/programs/corpus/*.shl), written as people write NumPy: every
statement must be supported, must reply the shape, dtype and status derived by hand (the `#:`
annotation after it), and, at the sample points of the program's `# points:` line, every name
must end with the values NumPy computes running the same lines, as each name's statement left
it (shapelab's names do not alias: a NumPy view written through later is compared as it was)
(`param` and `assume` skipped;
`input(shape, dtype)` a seeded random array; `# ints: y < v` bounds an integer input's values).
Values are compared within 1e-9 relative (or 4 ulp)."""
import glob
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPELAB = os.environ.get("SHAPELAB", os.path.join(HERE, "..", "..", "build", "shapelab"))
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "corpus", "*.shl")))


def literal(a):
    def rec(x):
        if isinstance(x, list):
            return "[" + ", ".join(rec(v) for v in x) + "]"
        if isinstance(x, bool):
            return "True" if x else "False"
        return repr(x) if isinstance(x, float) else str(x)
    return rec(a.tolist())


def parse(path):
    """(statements [(code, annotation)], sample points [dict], integer bounds {name: expr})."""
    statements, points, ints = [], [], {}
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# points:"):
            for p in line[len("# points:"):].split(";"):
                points.append({k.strip(): int(v) for k, v in (kv.split("=") for kv in p.split(","))})
        elif line.startswith("# ints:"):
            for bound in line[len("# ints:"):].split(","):
                name, expr = bound.split("<")
                ints[name.strip()] = expr.strip()
        elif line.strip() and not line.startswith("#"):
            code, _, annotation = line.partition("  #: ")
            statements.append((code.strip(), annotation.strip() or None))
    return statements, points, ints


def targets(code):
    """The names a statement binds or rebinds."""
    if m := re.match(r"np\.(\w+\.at|put_along_axis)\((\w+),", code):
        return [m.group(2)]
    if m := re.match(r"(\w+)\.sort\(", code):  # sorts in place
        return [m.group(1)]
    m = re.match(r"([\w, ]+?)(\[.*\])?\s*(\*\*|//|[-+*/%@&|^])?=(?!=)", code)
    return [t.strip() for t in m.group(1).split(",") if t.strip()] if m else []  # (`i, = ...` unpacks one)


def numpy_run(statements, point, ints, seed):
    rng = np.random.default_rng(seed)
    ns = {"np": np, **point, "bool": np.bool_}
    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]:
        ns[t] = getattr(np, t)
    inputs, snapshots = {}, {}

    def make(name, shape, dtype=np.float64):
        shape = tuple(int(s) for s in shape)
        if np.dtype(dtype).kind in "iu":
            high = int(eval(ints[name], {}, point)) if name in ints else 5
            return rng.integers(0, high, size=shape).astype(dtype)
        if np.dtype(dtype).kind == "b":
            return rng.random(shape) < 0.5
        return np.round(rng.normal(size=shape), 3).astype(dtype)

    for code, _ in statements:
        if code.startswith("param ") or code.startswith("assume "):
            continue
        if m := re.match(r"(\w+) = input\((.*)\)$", code):
            name = m.group(1)
            ns["input"] = lambda shape, dtype=np.float64, _n=name: make(_n, shape, dtype)
            exec(code, ns)
            inputs[name] = ns[name].copy()  # the program may write into it (T *= 2)
            snapshots[name] = inputs[name]
            continue
        exec(code, ns)
        # Each name as its statement left it: a view NumPy writes through later (turned =
        # np.rot90(T); T *= 2) keeps here what it was, as shapelab's names do (README).
        for name in targets(code):
            snapshots[name] = np.array(ns[name], copy=True)
    return snapshots, inputs


@pytest.mark.parametrize("path", PROGRAMS, ids=[os.path.basename(p) for p in PROGRAMS])
def test_program_replies_as_derived_and_agrees_with_numpy(path):
    statements, points, ints = parse(path)
    assert points, f"{path}: no '# points:' line"
    text = "".join(code + "\n" for code, _ in statements)
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write(text)
        program = f.name
    try:
        out = subprocess.run([SHAPELAB, "run", program], capture_output=True, text=True, timeout=120)
        replies = [l for l in out.stdout.splitlines() if not l.startswith(("  limits:", "  where "))]
        assert "error" not in out.stdout + out.stderr, out.stdout + out.stderr
        expected = []
        for code, annotation in statements:
            for name in targets(code):
                expected.append(f"{name}: {annotation}" if annotation else None)
        assert len(replies) == len(expected), "\n".join(replies)
        for got, want in zip(replies, expected):
            if want is not None:
                assert got == want
        names = sorted({n for code, _ in statements for n in targets(code)})
        for k, point in enumerate(points):
            ns, inputs = numpy_run(statements, point, ints, seed=k)
            binds = ", ".join([f"{s}={v}" for s, v in point.items()] + [f"{n}={literal(v)}" for n, v in inputs.items()])
            evals = "".join(f":eval {n} with {binds}\n" for n in names)
            with open(program, "w") as f:
                f.write(text + evals)
            out = subprocess.run([SHAPELAB, "run", "--json", program], capture_output=True, text=True, timeout=120)
            got = {r["name"]: r for r in map(json.loads, out.stdout.splitlines()) if r.get("command") == "eval"}
            for n in names:
                want = np.asarray(ns[n])
                r = got.get(n)
                assert r is not None and "error" not in r, f"{n} at {point}: {r}"
                assert r["dtype"] == str(want.dtype) and r["shape"] == list(want.shape), f"{n} at {point}: {r}"
                value = np.array(r["value"], dtype=object)
                value = np.vectorize(lambda x: float(x) if isinstance(x, str) else x, otypes=[want.dtype])(value) \
                    if value.size else value.astype(want.dtype).reshape(want.shape)  # ([] of an empty (0, t))
                if want.dtype.kind == "f":
                    rtol = 4e-3 if want.dtype == np.float16 else 1e-9  # float16: one rounding apart at most
                    assert np.allclose(value, want, rtol=rtol, atol=0, equal_nan=True), f"{n} at {point}: {value} vs {want}"
                else:
                    assert np.array_equal(value, want), f"{n} at {point}: {value} vs {want}"
    finally:
        os.unlink(program)
