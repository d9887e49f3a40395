"""The twelve dtypes against NumPy itself: .npy files NumPy writes of each are read by shapelab and
saved back bit for bit; casts between every pair (float16's rounding: ties, subnormals, overflow;
float to narrow integers as NumPy's C casts do on x86-64) give NumPy's bits; and np.result_type
of every pair of dtypes (and of each with a Python int, float and bool, NEP 50) is shapelab's
dtype of `a * b`. NumPy is the oracle: nothing here is computed by shapelab's own rules."""
import json

import numpy as np
import pytest

from shapelab_run import run_program

if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64"]

# Values every dtype can hold or must cast: zeros of both signs, halves and float16's ties
# (2049 rounds to 2048, 2051 to 2052), float16's subnormals and its overflow (65520 is inf), the
# integer limits. Floats cast to integers only where NumPy's result is not the platform's
# (finite, within int64).
FLOATS = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2049.0, 2051.0, 6e-08, 1e-05, -3e-06, 65504.0, 65519.0, 65520.0, 1e6,
          -1e6, 300.7, -1.5, 0.1, 1e300, np.inf, -np.inf, np.nan]
FINITE = [v for v in FLOATS if np.isfinite(v) and abs(v) < 2**62]


def run(lines):
    return [json.loads(line) for line in run_program(lines).stdout.splitlines()]


def literal(values):
    return "[" + ", ".join("nan" if v != v else "inf" if v == np.inf else "-inf" if v == -np.inf else repr(float(v))
                           for v in values) + "]"


@pytest.mark.parametrize("dtype", DTYPES)
def test_npy_files_round_trip(dtype, tmp_path):
    source = np.array(FINITE, dtype=np.float64).astype(dtype) if dtype != "bool" else np.array([True, False, True])
    if dtype == "uint64":
        source = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
    np.save(tmp_path / "in.npy", source)
    replies = run([f"x = input(({len(source)},), {dtype})", "y = np.copy(x)",
                   f":save y \"{tmp_path / 'out.npy'}\" with x=load(\"{tmp_path / 'in.npy'}\")"])
    assert all("error" not in r for r in replies), replies
    back = np.load(tmp_path / "out.npy")
    assert back.dtype == source.dtype
    assert back.tobytes() == source.tobytes()


@pytest.mark.parametrize("to", DTYPES)
def test_casts_from_float64_give_numpys_bits(to):
    values = FLOATS if to in ("float16", "float32", "float64", "bool") else FINITE
    if to == "uint64":
        values = [v for v in values if v >= 0]  # a negative float to uint64 is the platform's own
    replies = run([f"x = input(({len(values)},), float64)", f"y = x.astype(np.{to})", f":eval y with x={literal(values)}"])
    got = [r for r in replies if r.get("command") == "eval"][0]
    with np.errstate(all="ignore"):
        want = np.array(values, dtype=np.float64).astype(to)
    assert got["dtype"] == to
    for g, w in zip(got["value"], want.tolist()):
        if isinstance(g, str):
            assert g == ("nan" if w != w else "inf" if w > 0 else "-inf"), (g, w)
        else:
            assert g == w and (not isinstance(w, float) or np.copysign(1, g) == np.copysign(1, w)), (g, w)


@pytest.mark.parametrize("source", DTYPES)
def test_casts_between_every_pair_give_numpys_values(source):
    base = np.array([0, 1, 7, 100, 127, 200, 255, 3.5, -1.25, 0.25], dtype=np.float64)
    x = base.astype(source)
    lines = [f"x = input(({len(x)},), {source})"] + [f"y{k} = x.astype(np.{t})" for k, t in enumerate(DTYPES)]
    given = "[" + ", ".join(str(v).replace("True", "True").replace("False", "False") for v in x.tolist()) + "]"
    lines += [f":eval y{k} with x={given}" for k in range(len(DTYPES))]
    evals = [r for r in run(lines) if r.get("command") == "eval"]
    assert len(evals) == len(DTYPES)
    for r, t in zip(evals, DTYPES):
        want = x.astype(t)
        assert r["dtype"] == t
        shown = ["nan" if v != v else ("inf" if v > 0 else "-inf") if isinstance(v, float) and np.isinf(v) else v
                 for v in want.tolist()]
        assert r["value"] == shown, (source, t, r["value"], want.tolist())


def test_result_types_are_numpys():
    # a * b for every pair of dtypes, and each with a Python int, float and bool (weak, NEP 50).
    names = {a: f"{a[0]}{a[-2:]}" for a in DTYPES}
    lines = [f"{names[a]} = input((2,), {a})" for a in DTYPES]
    expected = {}
    for a in DTYPES:
        for b in DTYPES + ["1", "1.5", "True"]:
            operand = np.ones(2, b) if b in DTYPES else eval(b)
            name = f"r{len(expected)}"
            lines.append(f"{name} = {names[a]} * {names.get(b, b)}")
            expected[name] = (lines[-1], str((np.ones(2, a) * operand).dtype))
    replies = {r.get("assign"): r for r in run(lines) if "assign" in r}
    for name, (line, want) in expected.items():
        assert replies[name]["dtype"] == want, (line, replies[name]["dtype"], want)
