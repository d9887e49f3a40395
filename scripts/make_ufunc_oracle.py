"""Generates tests/data/numpy_ufuncs.jsonl: every elementwise function of shapelab's catalogue on
every dtype shapelab has (bool, int8 .. int64, uint8 .. uint64, float16, float32, float64), the
binary ones on every pair of
them, with Python numbers (weak, NEP 50) on either side, and of Python numbers (a NumPy scalar,
not weak), each with what NumPy computes: the result's dtype and values, or the error it raises.
The oracle the dtype rules and the reference kernels are checked against, table-wise
(tests/programs/test_numpy_programs.py reads it beside the random programs).

Run: /usr/bin/python3 scripts/make_ufunc_oracle.py

The output has the format of scripts/make_program_oracle.py's: one program per line, one
`:eval` per statement, and per eval NumPy's dtype, shape and values (exact or within a stated
tolerance), or an error kind: "type" where NumPy refuses the dtypes (shapelab refuses the
statement when building it), "value" where it
raises on the values (an integer to a negative power). The inputs hold the special values:
zeros of both signs, halves (rint rounds them to even), the integer limits, inf and nan.
"""
import json
import os
import warnings

import numpy as np

from oracle_values import literal, value_json

if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")
warnings.simplefilter("ignore")

UNARY_EXACT = ["abs", "negative", "sign", "floor", "ceil", "sqrt", "invert", "trunc", "rint", "fabs", "square",
               "positive", "logical_not", "isnan", "isinf", "isfinite", "signbit"]
UNARY_INEXACT = ["exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "exp2", "log2", "log10", "sinh",
                 "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "cbrt"]
# (spelling, NumPy's function, exact): an operator, or the function's name.
BINARY = [("+", np.add, True), ("-", np.subtract, True), ("*", np.multiply, True), ("/", np.true_divide, True),
          ("//", np.floor_divide, True), ("%", np.remainder, True), ("**", np.power, False),
          ("==", np.equal, True), ("!=", np.not_equal, True), ("<", np.less, True), ("<=", np.less_equal, True),
          (">", np.greater, True), (">=", np.greater_equal, True), ("&", np.bitwise_and, True),
          ("|", np.bitwise_or, True), ("^", np.bitwise_xor, True), ("maximum", np.maximum, True),
          ("minimum", np.minimum, True), ("fmax", np.fmax, True), ("fmin", np.fmin, True), ("fmod", np.fmod, True),
          ("arctan2", np.arctan2, False), ("hypot", np.hypot, False), ("copysign", np.copysign, True),
          ("logical_and", np.logical_and, True), ("logical_or", np.logical_or, True),
          ("logical_xor", np.logical_xor, True)]
HAVE = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"}

# One input per dtype, all of the same length, so any two combine element by element. No
# position holds zeros of opposite signs in two float inputs: NumPy's fmax/fmin and
# maximum/minimum pick either zero there depending on the loop that runs.
K = 12
INPUTS = {
    "b": np.array([False, True, True, False, True, False, True, True, False, False, True, False]),
    "i": np.array([0, 1, -1, 2, -7, 3, 100, 5, -3, 2**31 - 1, -2**31, 7], dtype=np.int32),
    "j": np.array([0, 1, -1, 2, -7, 3, 100, -5, 4, 2**63 - 1, -2**63, 6], dtype=np.int64),
    "f": np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, 3.0, np.inf, -np.inf, np.nan], dtype=np.float32),
    "d": np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -7.25, np.inf, 1e300, np.nan]),
    "k": np.array([0, 1, -1, 2, -7, 3, 100, 5, -3, 127, -128, 7], dtype=np.int8),
    "w": np.array([0, 1, -1, 2, -7, 3, 100, -5, 4, 32767, -32768, 6], dtype=np.int16),
    "u": np.array([0, 1, 255, 2, 7, 3, 100, 5, 3, 255, 128, 7], dtype=np.uint8),
    "v": np.array([0, 1, 65535, 2, 7, 3, 100, 5, 4, 65535, 32768, 6], dtype=np.uint16),
    "p": np.array([0, 1, 2**32 - 1, 2, 7, 3, 100, 5, 3, 2**32 - 1, 2**31, 7], dtype=np.uint32),
    "q": np.array([0, 1, 2**64 - 1, 2, 7, 3, 100, 5, 4, 2**64 - 1, 2**63, 6], dtype=np.uint64),
    "e": np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, 3.0, np.inf, 65504.0, np.nan], dtype=np.float16),
}
# Which inputs bring a float type's rounding: float16's or float32's (a result computed from one
# is compared within that type's tolerance, even when it is wider).
HALF, SINGLE = {"e"}, {"f"}


def outcome(compute, exact, low):
    """NumPy's result as the oracle states it. `low`: the names of the inputs it reads."""
    try:
        v = np.asarray(compute())
    except TypeError:
        return {"error": "type"}  # no loop for these dtypes
    except ValueError:
        return {"error": "value"}  # integers to negative integer powers
    if str(v.dtype) not in HAVE:
        return {"error": "type"}  # float16 or int8: shapelab refuses the statement
    tolerance = (4e-3 if v.dtype == np.float16 or set(low) & HALF else
                 1e-5 if v.dtype == np.float32 or set(low) & SINGLE else 1e-9)
    return {"dtype": str(v.dtype), "shape": list(v.shape), "value": value_json(v), "exact": bool(exact),
            "tolerance": tolerance}


def program(statements):
    """statements: (text, compute, exact, low) with `low` the inputs read (their float types)."""
    lines = ["param n, m"] + [f"{x} = input(({K},), {a.dtype})" for x, a in INPUTS.items()]
    binds = ", ".join(["n=0", "m=0"] + [f"{x}={literal(a)}" for x, a in INPUTS.items()])
    expected = {}
    for k, (text, compute, exact, low) in enumerate(statements):
        name = f"r{k}"
        lines.append(f"{name} = {text}")
    for k, (text, compute, exact, low) in enumerate(statements):
        lines.append(f":eval r{k} with {binds}")
        expected[str(len(lines))] = outcome(compute, exact, low)
    return {"n": 0, "m": 0, "program": "\n".join(lines) + "\n", "expected": expected}


def main():
    out = []
    names = list(INPUTS)
    for op in UNARY_EXACT + UNARY_INEXACT:
        fn = getattr(np, op)
        exact = op in UNARY_EXACT
        statements = [(f"{op}({x})", lambda fn=fn, x=x: fn(INPUTS[x]), exact, x) for x in names]
        # Of a Python number: NumPy gives a NumPy scalar, which is not weak, so multiplying it by an
        # int32 or float32 array promotes them. np. spells it as NumPy does; the bare name too.
        for num in ["2", "2.5"]:
            for x in ["i", "f"]:
                statements.append((f"np.{op}({num}) * {x}", lambda fn=fn, num=num, x=x: fn(eval(num)) * INPUTS[x],
                                   exact, x))
        # The bare name is NumPy's function, but for abs, which is Python's own.
        bare = abs if op == "abs" else fn
        statements.append((f"{op}(3) + i", lambda bare=bare: bare(3) + INPUTS["i"], exact, ""))
        out.append(program(statements))
    # Python's own abs keeps a Python number weak; NumPy's does not.
    out.append(program([("abs(-2) * i", lambda: abs(-2) * INPUTS["i"], True, ""),
                        ("np.abs(-2) * i", lambda: np.abs(-2) * INPUTS["i"], True, ""),
                        ("abs(-2.5) * f", lambda: abs(-2.5) * INPUTS["f"], True, "f")]))
    # Sizes: a shape's entries, len and .size are Python ints (weak); NumPy's reductions of a
    # shape give NumPy scalars (np.int64; np.float64 for the empty tuple), which are not.
    sized = []
    for x in ["i", "f"]:
        X = INPUTS[x]
        for text, compute in [(f"{x}.shape[0] * {x}", lambda X=X: X.shape[0] * X),
                              (f"len({x}.shape) * {x}", lambda X=X: len(X.shape) * X),
                              (f"{x}.size * {x}", lambda X=X: X.size * X),
                              (f"np.prod({x}.shape) * {x}", lambda X=X: np.prod(X.shape) * X),
                              (f"(np.sum({x}.shape) + 1) * {x}", lambda X=X: (np.sum(X.shape) + 1) * X),
                              (f"-np.max({x}.shape) * {x}", lambda X=X: -np.max(X.shape) * X),
                              (f"np.prod(()) * {x}", lambda X=X: np.prod(()) * X)]:
            sized.append((text, compute, True, x))
    out.append(program(sized))
    for sym, fn, exact in BINARY:
        spell = (lambda a, b, sym=sym: f"{sym}({a}, {b})") if sym[0].isalpha() else (lambda a, b, sym=sym: f"{a} {sym} {b}")
        statements = []
        for x in names:
            for y in names:
                statements.append((spell(x, y), lambda fn=fn, x=x, y=y: fn(INPUTS[x], INPUTS[y]), exact, x + y))
            for num in ["2", "2.5", "True"]:
                statements.append((spell(x, num), lambda fn=fn, x=x, num=num: fn(INPUTS[x], eval(num)), exact, x))
                statements.append((spell(num, x), lambda fn=fn, x=x, num=num: fn(eval(num), INPUTS[x]), exact, x))
        # In programs of at most 60 statements: a run stops after 100 errors, and NumPy refuses
        # many of these (bitwise ops of floats).
        for start in range(0, len(statements), 60):
            out.append(program(statements[start:start + 60]))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "numpy_ufuncs.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"made_by": "scripts/make_ufunc_oracle.py", "count": len(out), "numpy": np.__version__,
                            "promotion": "weak (NEP 50)"}) + "\n")
        for p in out:
            f.write(json.dumps(p) + "\n")
    print(f"wrote {len(out)} programs ({sum(len(p['expected']) for p in out)} evaluations) to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
