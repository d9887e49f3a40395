"""The reference interpreter against NumPy on generated programs (tests/data/numpy_programs.jsonl,
made by scripts/make_program_oracle.py, and numpy_programs_focus.jsonl, the same generator
dwelling on einsum and pad; numpy_programs_tri.jsonl, on tril, triu and roll;
numpy_programs_assign.jsonl, on advanced indexing and item assignment; _functions and
_selection, on NumPy's functions; _signed_sizes, on sizes from sizes below 0) and on the elementwise catalogue over every dtype
(tests/data/numpy_ufuncs.jsonl, made by scripts/make_ufunc_oracle.py). Each program runs through `shapelab run --json`; every
`:eval` must give NumPy's dtype and shape, and its values: bitwise for exact results, and for the
others within 4 ulp or a relative 1e-9 (float64; 1e-5 for float32) — the interpreter's stated
bound for transcendental functions, float reductions (NumPy sums pairwise), matmul and linear
algebra. Where NumPy raises an error, shapelab must report its kind: a shape error, or a value error
for an index array whose values are out of range (data, not a shape rule); where NumPy has no loop
for the dtypes or gives one shapelab lacks (float16, int8), the statement must be refused."""
import json
import math
import os
import struct
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPELAB = os.environ.get("SHAPELAB", os.path.join(HERE, "..", "..", "build", "shapelab"))


def load(name):
    with open(os.path.join(HERE, "..", "data", name)) as f:
        header = json.loads(f.readline())
        return header, [json.loads(line) for line in f]


# Random programs (scripts/make_program_oracle.py), and the elementwise catalogue on every dtype
# (scripts/make_ufunc_oracle.py).
HEADER, RANDOM = load("numpy_programs.jsonl")
UFUNC_HEADER, UFUNCS = load("numpy_ufuncs.jsonl")
# The same generator dwelling on some forms (einsum and pad: `make_program_oracle.py 200 7 10,11`).
FOCUS_HEADER, FOCUSED = load("numpy_programs_focus.jsonl")
# And on the composites tril, triu and roll (`make_program_oracle.py 120 12 12 tri`).
TRI_HEADER, TRI = load("numpy_programs_tri.jsonl")
# And on advanced indexing, item assignment, ufunc.at and take/put_along_axis
# (`make_program_oracle.py 150 13 13 assign`).
ASSIGN_HEADER, ASSIGN = load("numpy_programs_assign.jsonl")
# And on functions built from other ops: linspace, meshgrid, diagonal, trace, diag, kron, rot90,
# tensordot, isclose, allclose, nan_to_num, convolve's modes, correlate
# (`make_program_oracle.py 150 14 14 functions`).
FUNCTIONS_HEADER, FUNCTIONS = load("numpy_programs_functions.jsonl")
# And on selections, grids and windows: nonzero and its kin, unique, searchsorted, partition,
# the triangle indices, vander, logspace, indices, broadcast_arrays, sliding_window_view, pad's
# copying modes, compress (`make_program_oracle.py 200 15 15 selection`).
SELECTION_HEADER, SELECTION = load("numpy_programs_selection.jsonl")
LINALG_HEADER, LINALG = load("numpy_programs_linalg.jsonl")
DTYPES_HEADER, DTYPES = load("numpy_programs_dtypes.jsonl")
SIGNED_HEADER, SIGNED = load("numpy_programs_signed_sizes.jsonl")
PROGRAMS = RANDOM + UFUNCS + FOCUSED + TRI + ASSIGN + FUNCTIONS + SELECTION + LINALG + DTYPES + SIGNED


def ulps(a, b):
    ia = struct.unpack("<q", struct.pack("<d", a))[0]
    ib = struct.unpack("<q", struct.pack("<d", b))[0]
    if ia < 0:
        ia = -(2**63) - ia
    if ib < 0:
        ib = -(2**63) - ib
    return abs(ia - ib)


def same(got, want, exact, dtype, tol, where):
    """Exact results bit for bit; the others within `tol`, relative (or 4 ulps)."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, exact, dtype, tol, f"{where}[{k}]")
        return
    if isinstance(want, str) or isinstance(got, str):  # nan, inf, -inf
        assert got == want, f"{where}: {got!r} != {want!r}"
        return
    if isinstance(want, bool) or isinstance(want, int) and not dtype.startswith("float"):
        assert type(got) is type(want), f"{where}: {got!r} is not a {type(want).__name__}"
        # An integer or boolean computed from an inexact float (astype(det(s), int32), a
        # comparison of exp(x)) may differ where the float is within rounding of a boundary.
        if exact:
            assert got == want, f"{where}: {got!r} != {want!r}"
        return
    g, w = float(got), float(want)
    if exact:
        assert g == w and math.copysign(1, g) == math.copysign(1, w), f"{where}: {g!r} != {w!r} (exact)"
    else:
        assert ulps(g, w) <= 4 or abs(g - w) <= tol * max(1.0, abs(w)), f"{where}: {g!r} vs {w!r}"


def test_oracle_says_how_it_was_made():
    assert HEADER["made_by"] == "scripts/make_program_oracle.py"
    assert len(RANDOM) == HEADER["count"]
    assert UFUNC_HEADER["made_by"] == "scripts/make_ufunc_oracle.py"
    assert len(UFUNCS) == UFUNC_HEADER["count"]
    assert FOCUS_HEADER["made_by"] == "scripts/make_program_oracle.py" and FOCUS_HEADER["focus"] == [10, 11]
    assert len(FOCUSED) == FOCUS_HEADER["count"]
    assert TRI_HEADER["made_by"] == "scripts/make_program_oracle.py" and TRI_HEADER["focus"] == [12]
    assert len(TRI) == TRI_HEADER["count"]
    assert ASSIGN_HEADER["made_by"] == "scripts/make_program_oracle.py" and ASSIGN_HEADER["focus"] == [13]
    assert len(ASSIGN) == ASSIGN_HEADER["count"]
    assert FUNCTIONS_HEADER["made_by"] == "scripts/make_program_oracle.py" and FUNCTIONS_HEADER["focus"] == [14]
    assert len(FUNCTIONS) == FUNCTIONS_HEADER["count"]
    assert SELECTION_HEADER["made_by"] == "scripts/make_program_oracle.py" and SELECTION_HEADER["focus"] == [15]
    assert len(SELECTION) == SELECTION_HEADER["count"]
    assert LINALG_HEADER["made_by"] == "scripts/make_program_oracle.py" and LINALG_HEADER["focus"] == [16]
    assert len(LINALG) == LINALG_HEADER["count"]
    assert DTYPES_HEADER["made_by"] == "scripts/make_program_oracle.py" and DTYPES_HEADER["focus"] == [17]
    assert len(DTYPES) == DTYPES_HEADER["count"]
    assert SIGNED_HEADER["made_by"] == "scripts/make_program_oracle.py" and SIGNED_HEADER["focus"] == [18]
    assert len(SIGNED) == SIGNED_HEADER["count"]


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_program_agrees_with_numpy(index):
    p = PROGRAMS[index]
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write(p["program"])
        path = f.name
    try:
        out = subprocess.run([SHAPELAB, "run", "--json", path], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    replies = {}
    refused = set()  # names whose statement shapelab refused when building (a rank error)
    source = p["program"].splitlines()
    for line in out.stdout.splitlines():
        r = json.loads(line)
        replies[str(r.get("line"))] = r
        if "column" in r and " = " in source[r["line"] - 1]:
            refused.add(source[r["line"] - 1].split(" = ")[0])
    for line, want in p["expected"].items():
        got = replies.get(line)
        context = f"program {index}, line {line}:\n{p['program']}"
        assert got is not None, context
        name = source[int(line) - 1].split()[1]
        if want.get("error") == "shape" and name in refused:
            continue  # a shape error NumPy raises at run time, refused when the graph was built
        if want.get("error") == "type":
            # NumPy has no loop for the dtypes, or gives one shapelab does not have: the
            # statement is refused when built, and the eval names nothing.
            assert name in refused, f"{name} was built, NumPy refuses it: {got}\n{context}"
            continue
        assert name not in refused, f"{name} was refused\n{context}"
        assert "column" not in got, f"statement failed: {got}\n{context}"
        if "error" in want:
            assert "error" in got and got["error"]["kind"] == want["error"], f"{got}\n{context}"
            continue
        assert "error" not in got, f"{got}\n{context}"
        assert got["dtype"] == want["dtype"], f"dtype {got['dtype']} != {want['dtype']}\n{context}"
        assert got["shape"] == want["shape"], f"shape {got['shape']} != {want['shape']}\n{context}"
        # The oracle states each inexact result's tolerance: float32's (1e-5) for a value computed
        # from float32 data, even a float64 one (NumPy's float32 sin(-2.5) is 1 ulp off, and
        # outer(b, sin(f)) is float64), float64's (1e-9) otherwise.
        same(got["value"], want["value"], want["exact"], want["dtype"], want["tolerance"], context)
