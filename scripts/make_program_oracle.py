"""Generates tests/data/numpy_programs.jsonl: random programs in the shapelab language with the
values NumPy computes for them — the oracle the reference interpreter is checked against
(tests/programs/test_numpy_programs.py).

Run: /usr/bin/python3 scripts/make_program_oracle.py [COUNT] [SEED]

Each line is one program: its text (size parameters n, m; inputs; statements; one
`:eval NAME with n=.., m=.., INPUT=[...]` per statement with every input given by value) and, per
eval line, NumPy's result: dtype, shape and values, or the kind of error NumPy raises: "shape"
(ValueError / IndexError from broadcasting, reshapes, reductions, indexing) or "value" (an index
array's values out of range: data, so shapelab reports a value error). Each result
says whether it is exact (only correctly rounded IEEE operations and integer arithmetic on the
way: compared bitwise) or not (transcendental functions, float reductions, matmul, linear
algebra: compared within a stated tolerance). NumPy runs with NEP 50 promotion ("weak" Python
scalars), the semantics shapelab follows.
"""
import json
import random
import sys
import warnings

import numpy as np

from oracle_values import literal, value_json

if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")
warnings.simplefilter("ignore")

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 150
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
# Optional: forms of kind 25 to dwell on (e.g. "10,11": einsum and pad), written to
# tests/data/numpy_programs_focus.jsonl (or numpy_programs_NAME.jsonl with a fourth argument):
# half the statements are kind 25, and 80% of those one of these forms. Form 12 (tril, triu,
# roll) is drawn only so: `make_program_oracle.py 120 12 12 tri`.
FOCUS = [int(f) for f in sys.argv[3].split(",")] if len(sys.argv) > 3 else []
NAME = sys.argv[4] if len(sys.argv) > 4 else "focus"

UNARY_EXACT = ["abs", "negative", "floor", "ceil", "sign"]
UNARY_INEXACT = ["exp", "sqrt", "tanh", "log1p", "sin"]
BINARY = [("+", np.add), ("-", np.subtract), ("*", np.multiply), ("/", np.true_divide),
          ("//", np.floor_divide), ("%", np.remainder), ("maximum", np.maximum),
          ("minimum", np.minimum), ("<", np.less), ("==", np.equal), (">=", np.greater_equal)]


class ExpectedError(Exception):
    """An error the oracle classifies itself (kind "shape" or "value"), NumPy having refused."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


def sizes_of(n, m):
    return {"n": n, "m": m}


def make_program(rng):
    n, m = rng.randint(0, 3), rng.randint(0, 3)
    env = {}      # name -> (numpy value or None for an error, exact)
    inputs = []   # (name, decl, value)
    lines = ["param n, m"]

    def zero_signed(x):
        return -0.0 if x == 0 and rng.random() < 0.5 else x

    def add_input(name, dims, dtype):
        shape = tuple(n if d == "n" else m if d == "m" else d for d in dims)
        if dtype == "bool":
            v = np.array([rng.random() < 0.5 for _ in range(int(np.prod(shape)))], dtype=bool).reshape(shape)
        elif dtype.startswith("int"):
            v = np.array([rng.randint(-6, 6) for _ in range(int(np.prod(shape)))], dtype=dtype).reshape(shape)
        else:
            # Zeros of both signs: maximum/minimum of equal zeros, signs of products and quotients.
            v = np.array([zero_signed(rng.randint(-16, 16) / 4) for _ in range(int(np.prod(shape)))],
                         dtype=dtype).reshape(shape)
        decl = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
        lines.append(f"{name} = input({decl}, {dtype})")
        inputs.append((name, v))
        env[name] = (v, True)

    add_input("a", ["n", "m"], "float64")
    add_input("b", ["m"], "float64")
    add_input("c", ["n", 1], "int64")
    add_input("d", [1, "m"], "int32")
    add_input("f", ["m"], "float32")
    add_input("i", [2], "int64")
    add_input("s", [3, 3], "float64")
    statements = []
    name_of = lambda k: f"v{k}"
    low = set()   # names computed from float32 data
    half = set()  # names computed from float16 data
    errors = {}   # name -> "shape" or "value": the kind of error shapelab must report
    for k in range(rng.randint(4, 10)):
        integer_fails = False  # form 13: its integer index is out of range
        form = None
        warnings.resetwarnings()
        warnings.simplefilter("ignore")  # (form 13 raises DeprecationWarnings for its statement)
        names = [x for x in env if env[x][0] is not None]
        x = rng.choice(names)
        y = rng.choice(names)
        X, ex = env[x]
        Y, ey = env[y]
        kind = 25 if FOCUS and rng.random() < 0.5 else rng.randrange(26)
        exact = ex
        text = None
        try:
            if kind == 0:
                op = rng.choice(UNARY_EXACT + UNARY_INEXACT)
                if op in ("negative", "sign") and X.dtype == bool:
                    continue
                if X.dtype == bool and op not in ("abs",):
                    continue
                if not ex and op in ("floor", "ceil", "sign"):
                    continue  # a step of an inexact value flips at its steps (ceil(det(s)), det -65 but for rounding)
                text = f"{op}({x})"
                val = getattr(np, op)(X)
                exact = ex and op in UNARY_EXACT
            elif kind in (1, 2, 3):
                sym, fn = rng.choice(BINARY)
                if X.dtype == bool and Y.dtype == bool and sym in ("-", "//", "%"):
                    continue
                if not ey and sym in ("/", "//", "%") and np.any(np.abs(Y) < 1e-6):
                    continue  # an inexact divisor near 0 (an entry of inv(s) that is 0 but for rounding)
                if not (ex and ey) and sym in ("//", "%"):
                    continue  # a floor of an inexact quotient flips at integers (-4 // det(s), det 0.125 but for rounding)
                text = f"{sym}({x}, {y})" if sym[0].isalpha() else f"{x} {sym} {y}"
                val = fn(X, Y)
                exact = ex and ey
            elif kind == 4:
                lit = rng.choice(["2", "0.5", "-3", "1.25"])
                sym, fn = rng.choice(BINARY[:6])
                if X.dtype == bool and sym in ("-", "//", "%"):
                    continue
                if not ex and sym in ("//", "%"):
                    continue  # a floor of an inexact value flips at integers
                text = f"{x} {sym} {lit}"
                val = fn(X, int(lit) if "." not in lit else float(lit))
            elif kind == 5:
                ax = rng.choice([None] + list(range(-X.ndim, X.ndim))) if X.ndim else None
                kd = rng.random() < 0.3
                r = rng.choice(["sum", "prod", "max", "min", "all", "any", "mean"])
                text = f"{r}({x}" + ("" if ax is None else f", axis={ax}") + (", keepdims=True" if kd else "") + ")"
                val = getattr(np, r)(X, axis=ax, keepdims=kd)
                exact = ex and (r in ("max", "min", "all", "any") or (r in ("sum", "prod") and X.dtype.kind in "biu"))
            elif kind == 6:
                text = f"reshape({x}, (-1,))"
                val = X.reshape(-1)
            elif kind == 7:
                text = f"transpose({x})"
                val = np.transpose(X)
            elif kind == 8 and X.ndim:
                parts = []
                for _ in range(rng.randint(1, X.ndim)):
                    lo = rng.choice(["", "1", "-1", "n", "-2"])
                    hi = rng.choice(["", "2", "-1", "m", "n - 1"])
                    st = rng.choice(["", ":2", ":-1", ":-2"])
                    parts.append(lo + ":" + hi + st)
                text = f"{x}[{', '.join(parts)}]"
                val = eval(f"X[{', '.join(parts)}]", {"X": X, "n": n, "m": m})
            elif kind == 9 and X.ndim:
                idx = rng.choice(["0", "-1", "1", "None", "..., 0", "None, ..., -1"])
                text = f"{x}[{idx}]"
                val = eval(f"X[{idx}]", {"X": X})
            elif kind == 10 and X.ndim:
                # A mask of x itself, or of y: its shape must match the axes it indexes.
                if rng.random() < 0.3 and Y.ndim and Y.ndim <= X.ndim:
                    text = f"{x}[{y} > 0]" if Y.dtype != bool else f"{x}[{y}]"
                    val = X[Y > 0] if Y.dtype != bool else X[Y]  # IndexError where it does not match
                else:
                    text = f"{x}[{x} > 0]" if X.dtype != bool else f"{x}[{x}]"
                    val = X[X > 0] if X.dtype != bool else X[X]
            elif kind == 11 and X.ndim:
                ax = rng.randrange(X.ndim)
                if rng.random() < 0.5:
                    text = f"concatenate([{x}, {y}], axis={ax})"
                    val = np.concatenate([X, Y], axis=ax)
                else:
                    text = f"stack([{x}, {y}], axis={ax})"
                    val = np.stack([X, Y], axis=ax)
                exact = ex and ey
            elif kind == 12:
                if X.ndim >= 1 and Y.ndim >= 1:
                    text = f"{x} @ {y}"
                    val = np.matmul(X, Y)
                    exact = ex and ey and np.result_type(X, Y).kind in "biu"
                else:
                    continue
            elif kind == 13 and X.ndim:
                if rng.random() < 0.5:
                    ax = rng.randrange(X.ndim)
                    text = f"cumsum({x}, axis={ax})"
                    val = np.cumsum(X, axis=ax)
                    exact = ex and X.dtype.kind in "biu"
                else:
                    nn = rng.randint(0, 2)
                    text = f"diff({x}, n={nn}, axis=0)"
                    val = np.diff(X, n=nn, axis=0)
            elif kind == 14:
                text = f"where({x} > 0, {x}, {y})"
                val = np.where(X > 0, X, Y)
                exact = ex and ey
            elif kind == 15 and X.ndim:
                v = rng.choice(["1.5", "-2"])
                region = rng.choice(["0", ":, 0", "1:"]) if X.ndim == 2 else rng.choice(["0", "1:"])
                fn = rng.choice(["set_subtensor", "inc_subtensor"])
                text = f"{fn}({x}[{region}], {v})"
                Z = X.copy()
                if fn == "set_subtensor":
                    exec(f"Z[{region}] = {v}", {"Z": Z})
                else:
                    exec(f"Z[{region}] += {v}", {"Z": Z})
                val = Z
            elif kind == 16:
                dt = rng.choice(["int32", "float32", "int64", "bool"])
                text = f"astype({x}, {dt})"
                val = X.astype(dt)
            elif kind == 17:
                tgt = rng.choice(["(2, n, m)", "(n, m)", "(3, m)"])
                text = f"broadcast_to({x}, {tgt})"
                val = np.broadcast_to(X, eval(tgt, {"n": n, "m": m})).copy()
                exact = ex
            elif kind == 18:
                fn = rng.choice(["outer", "convolve"])
                text = f"{fn}({x}, {y})" if fn == "outer" or (X.ndim == 1 and Y.ndim == 1) else None
                if text is None:
                    continue
                val = getattr(np, fn)(X, Y)
                exact = ex and ey and np.result_type(X, Y).kind in "biu"
            elif kind == 19:
                fn = rng.choice(["det", "inv", "solve"])
                text = f"linalg.{fn}(s)" if fn != "solve" else "linalg.solve(s, b)"
                if np.linalg.cond(env["s"][0]) > 1e8:
                    # Singular or nearly: whether LU finds an exact zero pivot, and the digits
                    # of what follows, depend on the order of rounding, not on semantics.
                    continue
                try:
                    val = np.linalg.det(env["s"][0]) if fn == "det" else np.linalg.inv(env["s"][0]) if fn == "inv" else np.linalg.solve(env["s"][0], env["b"][0])
                except np.linalg.LinAlgError:
                    # A singular matrix: data, not shapes (shapelab reports a value error).
                    raise ExpectedError("value")
                exact = False
            elif kind == 20 and X.ndim:
                ax = rng.randrange(X.ndim)
                sec = rng.choice(["2", "[1]", "[1, 2]"])
                part = rng.randrange(2)
                text = f"split({x}, {sec}, axis={ax})[{part}]"
                val = np.split(X, eval(sec), axis=ax)[part]
            elif kind == 21:
                text = f"squeeze(expand_dims({x}, 0), axis=0) + full({x}.shape, 2)"
                val = np.squeeze(np.expand_dims(X, 0), axis=0) + np.full(X.shape, 2)
            elif kind == 24:
                # An array built from the shape of an array no name holds, read by an attribute:
                # NumPy computes that array first, so the statement fails where it does (here
                # where x and y do not broadcast), though its own shape never mentions it.
                sym, fn = rng.choice([("+", np.add), ("*", np.multiply)])
                inner = f"({x} {sym} {y})"
                # Or an array computed only to be dropped ([x + y, x][1]): it fails all the same.
                form = rng.randrange(4)
                text = (f"zeros({inner}.shape)" if form == 0 else
                        f"full(({inner}.size, 2), 1.5)" if form == 1 else
                        f"ones({inner}.ndim, dtype=int32)" if form == 2 else f"[{inner[1:-1]}, {x}][1]")
                Z = fn(X, Y)  # ValueError where they do not broadcast
                val = (np.zeros(Z.shape) if form == 0 else np.full((Z.size, 2), 1.5) if form == 1
                       else np.ones(Z.ndim, dtype=np.int32) if form == 2 else X)
                exact = True if form < 3 else ex
            elif kind == 25:
                # NumPy spellings made of other ops: clip, ravel / flatten, the *_like family,
                # dtypes as np attributes, reductions of a shape (np.prod(x.shape)), arange and eye,
                # layout spellings (flip, swapaxes, moveaxis, atleast_Nd, vstack, hstack) and
                # spreads (var, std, ptp).
                form = rng.choice(FOCUS) if FOCUS and rng.random() < 0.8 else rng.randrange(12)
                if form == 0:
                    lo, hi = rng.choice(["-1", "0.5", "None"]), rng.choice(["2", "1.25", "None"])
                    if lo == "None" and hi == "None":
                        continue
                    text = f"clip({x}, {lo}, {hi})" if rng.random() < 0.5 else f"{x}.clip({lo}, {hi})"
                    val = np.clip(X, eval(lo), eval(hi))
                elif form == 1:
                    text = f"ravel({x})" if rng.random() < 0.5 else f"{x}.flatten()"
                    val = X.ravel()
                elif form == 2:
                    fn = rng.choice(["zeros_like", "ones_like", "empty_like"])
                    text = f"{fn}({x})"
                    val = np.zeros_like(X) if fn != "ones_like" else np.ones_like(X)
                elif form == 3:
                    fill = rng.choice(["2", "2.75", "-1.5"])
                    dt = rng.choice([None, "np.float32", "np.int32"])
                    text = f"full_like({x}, {fill}" + (f", dtype={dt})" if dt else ")")
                    val = np.full_like(X, eval(fill), dtype=eval(dt) if dt else None)
                elif form == 4:
                    dt = rng.choice(["np.float32", "np.int64", "np.bool_"])
                    text = f"{x}.astype({dt})"
                    val = X.astype(eval(dt))
                elif form == 7:
                    r = X.ndim
                    sub = rng.randrange(8)
                    if sub == 0:
                        ax = rng.choice([None] + list(range(-r, r)) + ([(0, -1)] if r >= 2 else []))
                        text, val = f"np.flip({x}" + ("" if ax is None else f", {ax}") + ")", np.flip(X, ax)
                    elif sub == 1 and r >= 2:
                        i, j = rng.randrange(-r, r), rng.randrange(r)
                        text = f"np.swapaxes({x}, {i}, {j})" if rng.random() < 0.5 else f"{x}.swapaxes({i}, {j})"
                        val = np.swapaxes(X, i, j)
                    elif sub == 2 and r >= 1:
                        i, j = rng.randrange(r), rng.randrange(-r, r)
                        text, val = f"np.moveaxis({x}, {i}, {j})", np.moveaxis(X, i, j)
                    elif sub == 3:
                        d = rng.choice([1, 2, 3])
                        text, val = f"np.atleast_{d}d({x})", getattr(np, f"atleast_{d}d")(X)
                    elif sub == 4:
                        fn = rng.choice(["vstack", "hstack"])
                        text, val = f"np.{fn}([{x}, {y}])", getattr(np, fn)([X, Y])
                    elif sub == 5:
                        count = rng.choice(["0", "2", "n"])
                        ax = rng.choice([None] + list(range(-r, r)))
                        text = f"np.repeat({x}, {count}" + ("" if ax is None else f", axis={ax}") + ")"
                        val = np.repeat(X, n if count == "n" else int(count), axis=ax)
                    elif sub == 6:
                        reps = rng.choice(["2", "(2, 1)", "(1, 3, 2)", "(0, 2)"])
                        text, val = f"np.tile({x}, {reps})", np.tile(X, eval(reps))
                    else:
                        if X.ndim > 2 and Y.ndim >= 2:
                            continue  # a tensor product: shapelab refuses it
                        text, val = f"np.dot({x}, {y})", np.dot(X, Y)
                        exact = False  # sums of products, as BLAS orders them
                elif form == 9:
                    # argmax / argmin (one axis or the flat index; NaN wins) and cumprod.
                    fn = rng.choice(["argmax", "argmin", "cumprod"])
                    ax = rng.randrange(-X.ndim, X.ndim) if X.ndim and rng.random() < 0.7 else None
                    if fn == "cumprod":
                        if X.dtype == bool:
                            continue  # NumPy's bool cumprod is int64 too, but leave bools to cumsum
                        text = f"np.cumprod({x}" + ("" if ax is None else f", axis={ax}") + ")"
                        val = np.cumprod(X, axis=ax)
                        exact = ex and X.dtype.kind != "f"  # float products round as they go
                    else:
                        keep = ax is not None and rng.random() < 0.3
                        args = ([] if ax is None else [f"axis={ax}"]) + (["keepdims=True"] if keep else [])
                        text = f"np.{fn}({x}" + "".join(", " + a for a in args) + ")" if rng.random() < 0.5 else \
                            f"{x}.{fn}(" + ", ".join(args) + ")"
                        val = getattr(np, fn)(X, axis=ax, keepdims=keep)
                        exact = ex
                elif form == 8:
                    fn = rng.choice(["var", "std", "ptp", "norm"])
                    if fn == "norm":
                        ax = rng.choice([None] + list(range(-X.ndim, X.ndim)))
                        text = f"np.linalg.norm({x}" + ("" if ax is None else f", axis={ax}") + ")"
                        val = np.linalg.norm(X, axis=ax)
                        exact = False
                    else:
                        if X.dtype == bool and fn == "ptp":
                            continue  # NumPy's boolean subtract refuses
                        args = []
                        if X.ndim and rng.random() < 0.6:
                            args.append(f"axis={rng.randrange(-X.ndim, X.ndim)}")
                        if fn != "ptp" and rng.random() < 0.4:
                            args.append(f"ddof={rng.choice([1, 2])}")
                        if rng.random() < 0.3:
                            args.append("keepdims=True")
                        kw = dict(a.split("=") for a in args)
                        kw = {k: (v == "True") if k == "keepdims" else int(v) for k, v in kw.items()}
                        text = f"np.{fn}({x}" + "".join(", " + a for a in args) + ")" if rng.random() < 0.6 else \
                            f"{x}.{fn}(" + ", ".join(args) + ")"
                        val = getattr(np, fn)(X, **kw)
                        exact = ex and fn == "ptp"  # var and std divide and take roots
                elif form == 10:
                    # einsum: labels from a small alphabet, so that operands share labels (their
                    # sizes broadcast, or NumPy refuses), repeat within one (diagonals), '...',
                    # and implicit or explicit outputs (a subset of the labels, shuffled).
                    operands = [(x, X)] + ([(y, Y)] if rng.random() < 0.7 else [])
                    subs, used = [], []
                    for _, A in operands:
                        r = A.ndim
                        ellipsis = r >= 1 and rng.random() < 0.25
                        labels = [rng.choice("ijkB") for _ in range(r - (rng.randrange(r + 1) if ellipsis else 0))]
                        sub = "".join(labels)
                        if ellipsis:
                            at = rng.randrange(len(sub) + 1)
                            sub = sub[:at] + "..." + sub[at:]
                        subs.append(sub)
                        used += labels
                    # A Python number is an operand too: einsum makes it a 0-d array, which is not
                    # weak (einsum('i,->i', f32, 2.5) is float64).
                    if rng.random() < 0.2:
                        number = rng.choice(["2.5", "2", "True"])
                        operands.append((number, eval(number)))
                        subs.append("")
                    spec = ",".join(subs)
                    if rng.random() < 0.6:
                        kept = sorted(set(used))
                        rng.shuffle(kept)
                        out = "".join(kept[:rng.randrange(len(kept) + 1)])
                        if any("..." in sub for sub in subs) and rng.random() < 0.8:
                            at = rng.randrange(len(out) + 1)
                            out = out[:at] + "..." + out[at:]
                        spec += "->" + out
                    text = f"np.einsum('{spec}', " + ", ".join(v for v, _ in operands) + ")"
                    val = np.einsum(spec, *[A for _, A in operands])
                    # NumPy's view path (one operand, nothing summed) takes a diagonal's first
                    # size 0 as unset: 'ii->i' of a (0, 1) array is a (1,) view past its end.
                    # shapelab refuses unequal diagonal sizes, as NumPy's other path does.
                    if len(operands) == 1:
                        own = subs[0].replace("...", "." * (X.ndim - len(subs[0].replace("...", ""))))
                        if any(own.count(c) > 1 and len({X.shape[i] for i, d in enumerate(own) if d == c}) > 1
                               for c in set(own) - {"."}):
                            continue
                    # Integer sums are exact in any order; float sums as NumPy orders them are not.
                    exact = ex and (ey or y not in [v for v, _ in operands]) and \
                        all(np.asarray(A).dtype.kind in "biu" for _, A in operands)
                elif form == 11:
                    # pad: widths as one size, one pair, or one pair (or one size) per axis, sizes
                    # among them; constants as one value or one pair.
                    r = X.ndim
                    sizes = {"n": n, "m": m}
                    width = lambda: rng.choice(["0", "1", "2", "n", "m - 1"])
                    shape = rng.randrange(4)
                    if shape == 0:
                        pw = width()
                    elif shape == 1:
                        pw = f"({width()}, {width()})"
                    elif shape == 2:
                        pw = "(" + ", ".join(f"({width()}, {width()})" for _ in range(r)) + ("," if r == 1 else "") + ")"
                    else:
                        pw = "(" + ", ".join(f"({width()},)" for _ in range(r)) + ("," if r == 1 else "") + ")"
                    if r == 0 and shape >= 2:
                        continue  # () is not a pad width NumPy takes
                    # (mode='empty' leaves the new values unspecified: not compared here.)
                    cv = rng.choice(["", "", ", constant_values=2.5", ", constant_values=(-1, 3)", ", constant_values=True"])
                    text = f"np.pad({x}, {pw}{cv})"
                    kw = {"constant_values": eval(cv.split("=", 1)[1])} if cv else {}
                    val = np.pad(X, eval(pw, {}, sizes), **kw)  # ValueError for a negative width
                elif form == 6:
                    # arange over sizes (a negative step too) and eye / identity (an offset diagonal).
                    start, stop, step = rng.choice(["0", "2", "n", "m - 1"]), rng.choice(["n", "m + 2", f"{x}.size"]), rng.choice([1, 2, 3, -1, -2])
                    diag = rng.choice([0, 1, -1, 2])
                    sub = rng.randrange(4)
                    sizes = {"n": n, "m": m}
                    value = lambda e: eval(e.replace(f"{x}.size", str(X.size)), {}, sizes)
                    if sub == 0:
                        text, val = f"arange({stop})", np.arange(value(stop))
                    elif sub == 1:
                        text = f"np.arange({start}, {stop}, {step})"
                        val = np.arange(value(start), value(stop), step)
                    elif sub == 2:
                        text, val = f"eye(n, m + 1, k={diag})", np.eye(n, m + 1, k=diag)
                    else:
                        text, val = f"identity(m, dtype=int32)", np.identity(m, dtype=np.int32)
                    exact = True
                elif form == 12:
                    # tril / triu (the last two axes; a 1-d array as the rows of a square; k a
                    # size) and roll (shifts as sizes, negative too, per axis or for the
                    # flattened array). Only with FOCUS: the random mix above keeps its stream.
                    r = X.ndim
                    sizes = {"n": n, "m": m}
                    sub = rng.randrange(3)
                    if sub < 2:
                        fn = "tril" if sub == 0 else "triu"
                        diag = rng.choice(["0", "1", "-1", "n", "-m", "m - 2"])
                        text = f"np.{fn}({x}" + ("" if diag == "0" and rng.random() < 0.5 else f", k={diag}") + ")"
                        val = getattr(np, fn)(X, k=eval(diag, {}, sizes))  # TypeError for a 0-d array: skipped
                    else:
                        shift = rng.choice(["1", "-2", "n", "m + 3", "-n - 1", "(1, n)", "(2, -1)"])
                        axes = [None] + list(range(-r, r)) + ([(0, -1), (1, 1)] if r >= 2 else [])
                        axis = rng.choice(axes)
                        text = f"np.roll({x}, {shift}" + ("" if axis is None else f", axis={axis}") + ")"
                        val = np.roll(X, eval(shift, {}, sizes), axis)
                elif form == 13:
                    # NumPy's advanced indexing with several index arrays (broadcast together;
                    # their axes first when a slice, None or ... separates them), item
                    # assignment (`v[idx] = w`, `v[idx] op= w`: gather, operate, scatter, the
                    # last write winning), ufunc.at (accumulating), in-place operators, and
                    # take/put_along_axis. A rebinding statement works on a copy: `vK =
                    # np.copy(x)` first. Only with FOCUS (`make_program_oracle.py 150 13 13 assign`).
                    W = np.stack([X, X], axis=-1)
                    w = f"np.stack([{x}, {x}], axis=-1)"
                    I = env["i"][0]
                    def idx(ax, shape):
                        owner = w if len(shape) == W.ndim and shape == W.shape else x
                        return f"i % {owner}.shape[{ax}]", np.remainder(I, shape[ax])
                    # NumPy 1.24 still accepts an out-of-range index that selects nothing (with a
                    # DeprecationWarning): shapelab follows the future IndexError, as kind 22 does.
                    warnings.simplefilter("error", DeprecationWarning)
                    sub = rng.randrange(10)
                    if sub == 0:  # several arrays read, on a 3-d array (n, m, 2) or X itself
                        T, t_ = (W, w) if rng.random() < 0.6 or X.ndim < 2 else (X, x)
                        if T.ndim < 2:
                            continue
                        e0, I0 = idx(0, T.shape)
                        e1, I1 = idx(T.ndim - 1, T.shape)
                        pick = rng.randrange(5)
                        if pick == 0:
                            text = f"{t_}[{e0}, ..., {e1}]"
                            val = T[(I0, Ellipsis, I1)]
                        elif pick == 1:
                            text = f"{t_}[({e0})[:, None], ..., {e1}]"
                            val = T[(I0[:, None], Ellipsis, I1)]
                        elif pick == 2 and T.ndim == 3:
                            text = f"{t_}[:, {idx(1, T.shape)[0]}, {e1}]"
                            val = T[:, np.remainder(I, T.shape[1]), I1]
                        elif pick == 3 and T.ndim == 3:
                            text = f"{t_}[{e0}, :, 1]"
                            integer_fails = T.shape[2] <= 1
                            val = T[I0, :, 1]
                        else:
                            text = f"{t_}[{e0}, None, ..., -1]"
                            integer_fails = T.shape[-1] == 0
                            val = T[(I0, None, Ellipsis, -1)]
                    elif sub in (1, 2, 3, 4, 5) and X.ndim:
                        # A copy written through an index, by `=`, `op=` or ufunc.at.
                        e0, I0 = idx(0, X.shape)
                        keys = [(f"{e0}", I0), (f"1:", slice(1, None)), (f"::-2", slice(None, None, -2))]
                        if X.ndim >= 2:
                            e1, I1 = idx(1, X.shape)
                            keys += [(f"{e0}, {e1}", (I0, I1)), (f":, {e1}", (slice(None), I1)),
                                     (f"{e0}, 0::2", (I0, slice(0, None, 2))), (f"-1, {e1}", (-1, I1))]
                        key_text, key = rng.choice(keys)
                        integer_fails = key_text.startswith("-1") and X.shape[0] == 0
                        vtext = rng.choice(["1.5", "-2", "3", y])
                        V = Y if vtext == y else float(vtext) if "." in vtext else int(vtext)
                        Z = X.copy()
                        if sub <= 2:
                            op = rng.choice(["=", "+=", "-=", "*=", "//="]) if sub == 2 else "="
                            if op == "//=" and (vtext == y or X.dtype == bool or not ex):
                                continue
                            if X.dtype == bool and op in ("-=", "+=", "*="):
                                continue
                            stmt = f"{name_of(k)}[{key_text}] {op} {vtext}"
                            exec(f"Z[key] {op} V", {}, {"Z": Z, "key": key, "V": V})
                        elif sub == 3:
                            fn = rng.choice(["add", "subtract", "multiply", "maximum", "minimum"])
                            if isinstance(key, tuple) and any(isinstance(q, slice) for q in key) or isinstance(key, slice):
                                continue  # ufunc.at takes index arrays and integers here
                            if X.dtype == bool and fn == "subtract":
                                continue
                            stmt = f"np.{fn}.at({name_of(k)}, {key_text if not isinstance(key, tuple) else '(' + key_text + ')'}, {vtext})"
                            getattr(np, fn).at(Z, key, V)
                        else:
                            op = rng.choice(["+=", "*=", "-=", "/="])
                            if X.dtype == bool:
                                continue
                            stmt = f"{name_of(k)} {op} {vtext}"
                            exec(f"Z {op} V", {}, {"Z": Z, "V": V})
                        text = f"np.copy({x})\n{stmt}"
                        val = Z
                        exact = ex and (vtext != y or ey)
                    elif sub in (6, 7) and X.ndim:
                        ax = rng.randrange(X.ndim)
                        fn = rng.choice(["argmax", "argmin"])
                        ind = f"np.{fn}({x}, axis={ax}, keepdims=True)"
                        J = getattr(np, fn)(X, axis=ax, keepdims=True)
                        if sub == 6:
                            text = f"np.take_along_axis({x}, {ind}, axis={ax})"
                            val = np.take_along_axis(X, J, axis=ax)
                        else:
                            Z = X.copy()
                            np.put_along_axis(Z, J, 0, axis=ax)
                            text = f"np.copy({x})\nnp.put_along_axis({name_of(k)}, {ind}, 0, axis={ax})"
                            val = Z
                    elif sub == 9:
                        # Array literals: nested lists of numbers, sizes and arrays; dtype casts.
                        pick = rng.randrange(4)
                        if pick == 0:
                            text = f"np.array([{x}, {x} * 2])"
                            val = np.array([X, X * 2])
                        elif pick == 1:
                            text = "np.array([[1, 2.5], [n, m]])"
                            val = np.array([[1, 2.5], [n, m]])
                        elif pick == 2:
                            text = f"np.asarray([{x}, {y}], dtype=np.float32)"
                            val = np.asarray([X, Y], dtype=np.float32)
                        else:
                            text = f"{x} * np.float32(1.5)"
                            val = X * np.float32(1.5)
                        exact = ex and (pick != 2 or ey)
                    elif sub == 8:
                        fn = rng.choice(["add", "multiply", "maximum"])
                        text = f"np.{fn}.outer({x}, {y})"
                        val = getattr(np, fn).outer(X, Y)
                        exact = ex and ey
                    else:
                        continue
                elif form == 14:
                    # NumPy functions built from other ops: linspace, meshgrid, diagonal / trace /
                    # diag, kron, rot90, tensordot, isclose / allclose, nan_to_num, convolve's
                    # modes and correlate, take, round, list indices, sort, argsort. Only with FOCUS
                    # (`make_program_oracle.py 150 14 14 functions`).
                    sizes = {"n": n, "m": m}
                    warnings.simplefilter("error", DeprecationWarning)  # as in form 13
                    sub = rng.randrange(15)
                    if sub == 0:
                        num = rng.choice(["n", "m + 1", "5", "1", "0"])
                        lo, hi = rng.choice(["0.0", "-1.5", "2"]), rng.choice(["1.0", "10", "-3.25"])
                        end = rng.choice(["", ", endpoint=False"])
                        text = f"np.linspace({lo}, {hi}, {num}{end})"
                        val = np.linspace(eval(lo), eval(hi), eval(num, {}, sizes), endpoint=not end)
                        exact = True
                    elif sub == 1:
                        ind = rng.choice(["xy", "ij"])
                        text = f"np.meshgrid({x}, {y}, indexing='{ind}')[{rng.randrange(2)}]"
                        val = eval(f"np.meshgrid(X, Y, indexing='{ind}')" + text[text.rindex("["):])
                        exact = ex and ey
                    elif sub in (2, 3) and X.ndim >= 2:
                        off = rng.choice([0, 1, -1, 2])
                        fn = "diagonal" if sub == 2 else "trace"
                        text = f"np.{fn}({x}, {off})" if rng.random() < 0.7 else f"{x}.{fn}({off})"
                        val = getattr(np, fn)(X, off)
                        exact = ex and fn == "diagonal" or (ex and X.dtype.kind in "biu")
                    elif sub == 4 and X.ndim in (1, 2):
                        offset = rng.choice([0, 1, -2])
                        text = f"np.diag({x}, {offset})"
                        val = np.diag(X, offset)
                    elif sub == 5:
                        text = f"np.kron({x}, {y})"
                        val = np.kron(X, Y)
                        exact = ex and ey
                    elif sub == 6 and X.ndim >= 2:
                        turns = rng.choice([1, 2, 3, -1])
                        text = f"np.rot90({x}, {turns})"
                        val = np.rot90(X, turns)
                    elif sub == 7 and X.ndim >= 1 and Y.ndim >= 1:
                        axes = rng.choice(["1", "([0], [0])", "([-1], [0])", "0"])
                        text = f"np.tensordot({x}, {y}, axes={axes})"
                        val = np.tensordot(X, Y, axes=eval(axes))
                        exact = False
                    elif sub == 8:
                        fn = rng.choice(["isclose", "allclose"])
                        kw = rng.choice(["", ", rtol=0.5", ", atol=1", ", equal_nan=True"])
                        text = f"np.{fn}({x}, {y}{kw})"
                        val = eval(f"np.{fn}(X, Y{kw})")
                    elif sub == 9:
                        Z = X / Y if X.dtype.kind == "f" and Y.dtype.kind == "f" else X
                        src = f"{x} / {y}" if Z is not X else x
                        kw = rng.choice(["", ", nan=-1.0", ", posinf=9.0, neginf=-9.0"])
                        text = f"np.nan_to_num({src}{kw})"
                        val = eval(f"np.nan_to_num(Z{kw})")
                    elif sub == 11 and X.ndim >= 1:
                        ax = rng.choice(["None", "0", "-1"])
                        text = f"np.take({x}, i % {x}.shape[{0 if ax == 'None' else ax}], axis={ax})"
                        J = np.remainder(env["i"][0], X.shape[0 if ax == "None" else int(ax)])
                        val = np.take(X, J, axis=eval(ax))
                    elif sub == 12 and X.dtype.kind == "f":
                        dec = rng.choice([0, 1, 2, -1])
                        text = f"np.round({x}, {dec})" if rng.random() < 0.5 else f"{x}.round({dec})"
                        val = np.round(X, dec)
                        exact = ex
                    elif sub == 13 and X.ndim >= 1:
                        lst = rng.choice(["[0, -1]", "[1]", "[0, 0, 1]", "[-1, 0]"])
                        text = f"{x}[{lst}]" if rng.random() < 0.5 else f"{x}[..., {lst}]"
                        val = eval(text.replace(x, "X"))
                    elif sub == 14:
                        # argsort: shapelab's is stable (NumPy's default quicksort promises no
                        # order of ties): compared with kind='stable'. sort's equal zeros of both
                        # signs may come in either order: compared as values (not bitwise).
                        ax = rng.choice(["", ", axis=0", ", axis=None"]) if X.ndim else rng.choice(["", ", axis=None"])
                        if rng.random() < 0.5:
                            text = f"np.sort({x}{ax})"
                            val = eval(f"np.sort(X{ax})")
                            exact = False
                        else:
                            text = f"np.argsort({x}{ax})"
                            val = eval(f"np.argsort(X{ax}, kind='stable')")
                    elif sub == 10 and X.ndim == 1 and Y.ndim == 1:
                        fn = rng.choice(["convolve", "correlate"])
                        md = rng.choice(["full", "same", "valid"])
                        text = f"np.{fn}({x}, {y}, mode='{md}')"
                        val = getattr(np, fn)(X, Y, mode=md)
                        exact = False
                    else:
                        continue
                elif form == 15:
                    # Selections, grids and windows: nonzero / flatnonzero / argwhere / where(c),
                    # unique, searchsorted, partition and argpartition (read at kth: NumPy's
                    # arrangement of the rest is its own), tril/triu_indices, vander, logspace,
                    # indices, broadcast_arrays, sliding_window_view, pad's copying modes,
                    # compress, and the reductions' where= and initial=. Only with FOCUS
                    # (`make_program_oracle.py 200 15 15 selection`).
                    sizes = {"n": n, "m": m}
                    sub = rng.randrange(20)
                    if sub == 0 and X.ndim >= 1:
                        j = rng.randrange(X.ndim)
                        text = f"np.nonzero({x})[{j}]" if rng.random() < 0.5 else f"np.where({x} > 0)[{j}]"
                        val = np.nonzero(X)[j] if "nonzero" in text else np.where(X > 0)[j]
                    elif sub == 1:
                        if rng.random() < 0.5:
                            text, val = f"np.flatnonzero({x} > 0)", np.flatnonzero(X > 0)
                        else:
                            text, val = f"np.argwhere({x})", np.argwhere(X)
                    elif sub == 2:
                        ret = rng.choice(["", "return_index", "return_inverse", "return_counts"])
                        text = f"np.unique({x}, {ret}=True)[1]" if ret else f"np.unique({x})"
                        val = np.unique(X, **{ret: True})[1] if ret else np.unique(X)
                        exact = ex and (bool(ret) or X.dtype.kind != "f")  # -0.0 and 0.0 are one value: either sign
                    elif sub == 3:
                        side = rng.choice(["left", "right"])
                        text = f"np.searchsorted(np.sort({x}.ravel()), {y}, side='{side}')"
                        val = np.searchsorted(np.sort(X.ravel()), Y, side=side)
                    elif sub == 4 and X.ndim >= 1:
                        kth = rng.choice([0, -1, 1])
                        integer_fails = not -X.shape[-1] <= kth < X.shape[-1]  # `[..., kth]` is a shape rule
                        if rng.random() < 0.5:
                            text = f"np.partition({x}, {kth})[..., {kth}]"
                            val = np.partition(X, kth)[..., kth]
                        else:
                            text = f"np.take_along_axis({x}, np.argpartition({x}, {kth}), -1)[..., {kth}]"
                            val = np.take_along_axis(X, np.argpartition(X, kth), -1)[..., kth]
                        exact = ex and X.dtype.kind != "f"  # the kth value's zero may be of either sign
                    elif sub == 5:
                        fn = rng.choice(["tril_indices", "triu_indices"])
                        args = rng.choice(["n", "n, 1", "m, -1", "n, 0, m"])
                        text = f"np.{fn}({args})[{rng.randrange(2)}]"
                        val = eval(f"np.{fn}({args})" + text[text.rindex("["):], {"np": np}, sizes)
                    elif sub == 6:
                        cols = rng.choice(["", ", 3", ", n", ", 0"])
                        inc = rng.choice(["", ", increasing=True"])
                        text = f"np.vander({x}.ravel(){cols}{inc})"
                        val = eval(f"np.vander(X.ravel(){cols}{inc})", {"np": np, "X": X}, sizes)
                        exact = ex
                    elif sub == 7:
                        num = rng.choice(["n", "m + 1", "4", "1"])
                        base = rng.choice(["", ", base=2.0"])
                        text = f"np.logspace(-1.0, 2.0, {num}{base})"
                        val = eval(f"np.logspace(-1.0, 2.0, {num}{base})", {"np": np}, sizes)
                        exact = False
                    elif sub == 8:
                        if rng.random() < 0.5:
                            text, val = f"np.indices({x}.shape)", np.indices(X.shape)
                        elif X.ndim >= 1:
                            j = rng.randrange(X.ndim)
                            text, val = f"np.indices({x}.shape, sparse=True)[{j}]", np.indices(X.shape, sparse=True)[j]
                        else:
                            continue
                    elif sub == 9:
                        j = rng.randrange(2)
                        text = f"np.broadcast_arrays({x}, {y})[{j}]"
                        val = np.broadcast_arrays(X, Y)[j]
                        exact = ex if j == 0 else ey
                    elif sub == 10 and X.ndim >= 1:
                        w = rng.choice(["1", "2", "n"])
                        text = f"np.lib.stride_tricks.sliding_window_view({x}, {w}, axis=-1)"
                        val = np.lib.stride_tricks.sliding_window_view(X, eval(w, {}, sizes), axis=-1)
                    elif sub == 11 and X.ndim >= 1:
                        md = rng.choice(["edge", "wrap", "symmetric", "reflect"])
                        widths = rng.choice(["1", "(2, 0)", "(n, 1)", "(0, m + 3)", "(7, 1)", "(1, 2 * n + 5)"])
                        text = f"np.pad({x}, {widths}, mode='{md}')"
                        val = np.pad(X, eval(widths, {}, sizes), mode=md)
                    elif sub == 12 and Y.ndim >= 1:
                        text = f"np.compress({x}.ravel() > 0, {y}, axis=0)"
                        val = np.compress(X.ravel() > 0, Y, axis=0)
                        exact = ey
                    elif sub in (17, 18, 19) and X.ndim >= 1:
                        # Linear algebra: cholesky of a positive definite stack, matrix_power,
                        # slogdet, norm's orders. NumPy's LinAlgError for a singular or indefinite
                        # matrix is a value error; for a shape (not square) a shape error.
                        sq = f"({x} @ np.swapaxes({x}, -1, -2) + 3.0 * np.eye({x}.shape[-2]))" if X.ndim >= 2 else None
                        forms = [f"np.linalg.norm({x}, {o}{a})" for o, a in
                                 [("np.inf", ", axis=-1"), ("1", ", axis=0"), ("0", ", axis=-1"), ("3", ", axis=-1, keepdims=True")]]
                        if X.ndim >= 2 and rng.random() < 0.8:
                            forms = [f"np.linalg.cholesky({sq})", f"np.linalg.matrix_power({sq}, {rng.choice([0, 1, 2, 3, -1])})",
                                      f"np.linalg.slogdet({sq})[{rng.randrange(2)}]", f"np.linalg.matrix_power({x}, 2)",
                                      f"np.linalg.norm({x}, {rng.choice(['1', '-1', 'np.inf', '-np.inf', repr('fro')])}, axis=(-2, -1))"]
                        text = rng.choice(forms)
                        try:
                            val = eval(text, {"np": np, x: X})
                        except np.linalg.LinAlgError as e:
                            raise ExpectedError("value" if "Singular" in str(e) or "definite" in str(e) else "shape")
                        exact = False
                    elif sub in (15, 16):
                        # Sizes from sizes: Python's floor division of sizes (ZeroDivisionError where
                        # the divisor is 0: a shape error, as every error about sizes).
                        text = rng.choice([f"np.zeros((n // m, n % m))", f"{x}.reshape({x}.size // (m + 1), -1)",
                                           f"np.ones((2, (n + 3) // m))", f"{x}.ravel()[: {x}.size // m]"])
                        try:
                            val = eval(text, {"np": np, x: X, **sizes})
                        except ZeroDivisionError:
                            raise ExpectedError("shape")
                    elif sub in (13, 14):
                        fn = rng.choice(["sum", "prod", "max", "min", "mean", "all", "any"])
                        ax = rng.choice(["", ", axis=0", ", axis=-1", ", axis=(0, 1)"]) if X.ndim >= 2 else \
                            rng.choice(["", ", axis=0"]) if X.ndim else ""
                        kw = ax + rng.choice(["", ", keepdims=True"])
                        if fn in ("max", "min") or rng.random() < 0.7:
                            kw += f", where={x} > 0" if rng.random() < 0.5 else f", where={y} < 1"
                        if fn in ("sum", "prod", "max", "min") and rng.random() < 0.7:
                            kw += rng.choice([", initial=0", ", initial=2", ", initial=-1.5"])
                        if "where" not in kw and "initial" not in kw:
                            continue
                        text = f"np.{fn}({x}{kw})"
                        env_ = {"np": np, x: X, y: Y}
                        val = eval(text, env_)
                        exact = ex and ey and (fn in ("max", "min", "all", "any") or X.dtype.kind in "biu")
                    else:
                        continue
                elif form == 16:
                    # repeat with counts (a list of sizes, an array of data), and np.linalg's
                    # factorizations: qr, svd, eigh/eigvalsh compared through what does not depend
                    # on the vectors' signs (reconstructions, Q^T Q, the values), pinv, lstsq,
                    # matrix_rank, norm's 2, -2 and 'nuc'. Only with FOCUS
                    # (`make_program_oracle.py 200 16 16 linalg`).
                    sizes = {"n": n, "m": m}
                    sub = rng.randrange(10)
                    T = lambda v: f"np.swapaxes({v}, -1, -2)"

                    def ev(text_, names):
                        # NumPy's LinAlgError: a shape (not square, too few dimensions) is a shape
                        # error; SVD's non-convergence (NaN or inf data) a value error.
                        try:
                            return eval(text_, {"np": np, **names})
                        except np.linalg.LinAlgError as e:
                            raise ExpectedError("value" if "converge" in str(e) else "shape")
                    if sub in (0, 1) and X.ndim >= 1:
                        ax = rng.choice([0, -1, None])
                        L = X.size if ax is None else X.shape[ax]
                        counts = rng.choice(["[2]", "[1, 0, 2]", "[n, 1]", "[m, 0]", "np.arange(L) % 3",
                                             "np.arange(L) - 1", "np.array(2)", "np.ones(L, dtype=int32)",
                                             "(x > 0).ravel()"])
                        if counts == "(x > 0).ravel()":
                            if ax is not None:
                                continue
                            counts_text, C = f"({x} > 0).ravel()", (X > 0).ravel()
                        else:
                            length = "x.size" if ax is None else f"x.shape[{ax}]"
                            counts_text = counts.replace("L", length.replace("x", x)).replace("int32", "np.int32")
                            C = eval(counts.replace("int32", "np.int32"), {"np": np}, {"L": L, **sizes})
                        kw = "" if ax is None else f", axis={ax}"
                        text = f"np.repeat({x}, {counts_text}{kw})"
                        if np.any(np.asarray(C) < 0):
                            # Negative counts: NumPy's ValueError. Data (an array) is a value
                            # error; a list of sizes is a rule over sizes.
                            raise ExpectedError("value" if "np." in counts else "shape")
                        val = np.repeat(X, C, axis=ax)
                    elif sub == 2 and X.ndim >= 2:
                        md = rng.choice(["reduced", "complete"])
                        text = rng.choice([f"np.linalg.qr({x}, mode='{md}')[0] @ np.linalg.qr({x}, mode='{md}')[1]",
                                           f"{T(f'np.linalg.qr({x})[0]')} @ np.linalg.qr({x})[0]",
                                           f"np.abs(np.linalg.qr({x}, mode='r')).shape[-1] + 0.5"])
                        val = ev(text, {x: X})
                        exact = False
                    elif sub == 3 and X.ndim >= 2:
                        full = rng.choice(["True", "False"])
                        text = rng.choice([f"np.linalg.svd({x}, compute_uv=False)",
                                           f"np.linalg.svd({x}, full_matrices={full})[1]",
                                           f"{T(f'np.linalg.svd({x}, full_matrices={full})[0]')} @ np.linalg.svd({x}, full_matrices={full})[0]",
                                           f"np.linalg.svd({x}, full_matrices=False)[0] * np.linalg.svd({x}, full_matrices=False)[1][..., None, :] @ np.linalg.svd({x}, full_matrices=False)[2]",
                                           f"np.linalg.svd({x} + {T(x)}, hermitian=True)[1]"])
                        val = ev(text, {x: X})
                        exact = False
                    elif sub == 4 and X.ndim >= 2:
                        uplo = rng.choice(["", ", UPLO='U'"])
                        text = rng.choice([f"np.linalg.eigvalsh({x}{uplo})", f"np.linalg.eigh({x}{uplo})[0]",
                                           f"np.linalg.eigh({x}{uplo})[1] * np.linalg.eigh({x}{uplo})[0][..., None, :] @ {T(f'np.linalg.eigh({x}{uplo})[1]')}"])
                        val = ev(text, {x: X})
                        exact = False
                    elif sub == 5 and X.ndim >= 2:
                        if X.size == 0 and X.dtype.kind != "f":
                            continue  # NumPy returns an empty array of a's own dtype (float64 once not empty)
                        text = rng.choice([f"np.linalg.pinv({x})", f"np.linalg.pinv({x} @ {T(x)} + 2.0 * np.eye({x}.shape[-2]), hermitian=True)",
                                           f"np.linalg.pinv({x}, rcond=0.1)"])
                        val = ev(text, {x: X})
                        exact = False
                    elif sub in (6, 7):
                        j = rng.randrange(4)
                        rc = rng.choice(["rcond=None", "rcond=-1", "rcond=0.5"])
                        rhs = rng.choice(["b", "a", "b[:, None] * b", "a[:, 0]"])
                        text = f"np.linalg.lstsq(a.T, {rhs}, {rc})[{j}]"
                        val = ev(text, {"a": env["a"][0], "b": env["b"][0]})
                        exact = j == 2
                    elif sub == 8 and X.ndim >= 2:
                        text = rng.choice([f"np.linalg.matrix_rank({x})", f"np.linalg.matrix_rank({x}, tol=0.5)",
                                           f"np.linalg.norm({x}, 2)", f"np.linalg.norm({x}, -2)", f"np.linalg.norm({x}, 'nuc')",
                                           f"np.linalg.norm({x}, 2, axis=(0, 1), keepdims=True)"])
                        val = ev(text, {x: X})
                        exact = "matrix_rank" in text
                    elif sub == 9 and X.ndim < 2:
                        text = rng.choice([f"np.linalg.svd({x})", f"np.linalg.qr({x})", f"np.linalg.pinv({x})"])
                        val = ev(text, {x: X})
                    else:
                        continue
                elif form == 17:
                    # The narrow integer dtypes and float16 (NumPy's promotion table under NEP 50):
                    # casts of finite data, arithmetic and comparisons between any two, the math
                    # functions (int8 gives float16, int16 float32), reductions (sum and prod to
                    # int64 or uint64), Python literals that must fit the array's dtype
                    # (OverflowError: a rule shapelab checks before running). Only with FOCUS
                    # (`make_program_oracle.py 200 17 17 dtypes`).
                    small = ["int8", "int16", "uint8", "uint16", "uint32", "uint64", "float16"]
                    every = small + ["bool_", "int32", "int64", "float32", "float64"]
                    if any(V.dtype.kind == "f" and not np.all(np.isfinite(V)) for V in (X, Y)):
                        continue  # a cast of NaN or inf to an integer is the platform's own
                    d1, d2 = rng.choice(small), rng.choice(every)
                    cx, cy = f"{x}.astype(np.{d1})", f"{y}.astype(np.{d2})"
                    sub = rng.randrange(6)
                    if sub in (1, 5):
                        try:
                            np.broadcast_shapes(X.shape, Y.shape)
                        except ValueError:
                            # (NumPy 1.24's == then gives False with a DeprecationWarning.)
                            text = f"{cx} + {cy}"
                            raise ExpectedError("shape")
                    if sub == 0:
                        text = cx
                    elif sub == 1:
                        op = rng.choice(["+", "-", "*", "/", "//", "%", "<", "==", "**"])
                        text = f"{cx} {op} {cy}"
                    elif sub == 2:
                        fn = rng.choice(["exp", "sqrt", "sin", "abs", "negative", "square", "floor", "sign"])
                        text = f"np.{fn}({cx})"
                    elif sub == 3:
                        fn = rng.choice(["sum", "prod", "max", "mean", "cumsum"])
                        if fn == "max" and X.size == 0:
                            continue
                        text = f"np.{fn}({cx})"
                    elif sub == 4:
                        lit = rng.choice(["1", "-1", "300", "2.5", "70000.0", "n"])
                        text = f"{cx} + {lit}"
                    else:
                        text = f"np.maximum({cx}, {cy})" if rng.random() < 0.5 else f"np.where({x} > 0, {cx}, {cy})"
                    try:
                        with np.errstate(all="ignore"):
                            val = eval(text, {"np": np, x: X, y: Y, **sizes_of(n, m)})
                    except OverflowError:
                        raise ExpectedError("shape")  # a Python integer out of the dtype's range
                    except ValueError as e:
                        if "Integers to negative integer powers" in str(e):
                            raise ExpectedError("value")
                        raise
                    val = np.asarray(val)
                    exact = ex and ey and val.dtype.kind in "biu"
                elif form == 18:
                    # Sizes from sizes whose numerator may be negative (Python's floor division and
                    # remainder below 0: a strided window count, a slice start) and a divisor never
                    # positive. ZeroDivisionError and a negative dimension are shape errors. Only
                    # with FOCUS (`make_program_oracle.py 150 18 18 signed_sizes`).
                    text = rng.choice([f"np.zeros(((n - m - 1) // m + 1, 2))", f"np.ones(((m - n) % (n + 1), (n - 2) // (m + 1) + 1))",
                                       f"{x}.ravel()[: ({x}.size - m) // (n + 1)]", f"np.zeros(((n - 3) // -(m + 1) + 1,))",
                                       f"np.arange((n - m) // (m + 2), n + 1)", f"{x}.ravel()[(n - 3) // (m + 1):]",
                                       f"np.full(((n - 2) // m + 2, (1 - n) % m), 1.5)"])
                    try:
                        val = eval(text, {"np": np, x: X, **sizes_of(n, m)})
                    except ZeroDivisionError:
                        raise ExpectedError("shape")
                    exact = ex if text.startswith(f"{x}.") else True
                else:
                    # A tuple of sizes reduced as NumPy does (an int64 array): a size again.
                    fns = ["np.prod", "np.sum", "len"] + (["np.max", "np.min"] if X.ndim else [])
                    fn = rng.choice(fns)
                    count = eval(fn)(X.shape)
                    if fn != "len" and not X.ndim:
                        continue  # an empty tuple is a float64 array: prod gives 1.0, not a size
                    text = f"full(({fn}({x}.shape), 2), 0.5)"
                    val = np.full((count, 2), 0.5)
            elif kind in (22, 23) and X.ndim:
                # Integer-array indexing with the int64 input i (values -6..5), brought into
                # range by `% x.shape[ax]` or not; alone, after a full slice or next to an
                # integer; read (22), or written by set/inc_subtensor (23; repeated indices
                # accumulate, as np.add.at does). The integer index is a shape rule (an error
                # before anything runs); an index array's values are data (a value error).
                I = env["i"][0]
                ax = 1 if X.ndim >= 2 and rng.random() < 0.5 else 0
                if rng.random() < 0.7:
                    idx, I = f"i % {x}.shape[{ax}]", np.remainder(I, X.shape[ax])
                else:
                    idx = "i"
                before = rng.choice([":", "-1"]) if ax == 1 else None
                region = idx if ax == 0 else f"{before}, {idx}"
                key = I if ax == 0 else (slice(None) if before == ":" else -1, I)
                integer_fails = before == "-1" and X.shape[0] == 0
                values_fail = bool(np.any((I < -X.shape[ax]) | (I >= X.shape[ax])))
                if kind == 22:
                    text = f"{x}[{region}]"
                    error = "shape" if integer_fails else "value" if values_fail else None
                    val = None if error else X[key]
                else:
                    v = rng.choice(["1.5", "-2", y])
                    V = Y if v == y else float(v) if "." in v else int(v)
                    if v == y and np.result_type(X, Y) != X.dtype:
                        continue  # a value of a wider type: NumPy's assignment would cast it
                    fn = rng.choice(["set_subtensor", "inc_subtensor"])
                    text = f"{fn}({x}[{region}], {v})"
                    exact = ex and (v != y or ey)  # the value written is part of the result
                    region_shape = (I.shape + X.shape[1:] if ax == 0 else
                                    ((X.shape[0],) if before == ":" else ()) + I.shape + X.shape[2:])
                    if v == y and Y.ndim > len(region_shape):
                        continue  # NumPy's assignment drops leading 1s; the value must broadcast *to* the region

                    try:
                        np.broadcast_to(np.asarray(V), region_shape)
                        broadcasts = True
                    except ValueError:
                        broadcasts = False
                    # NumPy's order: the indices' shapes, then the value's broadcast to the
                    # region, then the index array's values.
                    error = ("shape" if integer_fails or not broadcasts else "value" if values_fail else None)
                    val = None
                    if not error:
                        Z = X.copy()
                        if fn == "set_subtensor":
                            Z[key] = V
                        else:
                            np.add.at(Z, key, V)
                        val = Z
                if error:
                    # NumPy must refuse too. Out-of-range indices that select nothing (an empty
                    # axis after the indexed one) are still accepted by NumPy with a
                    # DeprecationWarning ("In the future the index error will be raised"):
                    # shapelab follows that future, and so does this oracle.
                    # And with the exception of that kind: an index out of range (the integer
                    # index's or the array's) is an IndexError, a value that does not fit a
                    # ValueError.
                    raised = None
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("error", DeprecationWarning)
                            if kind == 22:
                                X[key]
                            else:
                                Z = X.copy()
                                Z[key] = V
                    except (IndexError, DeprecationWarning):
                        raised = IndexError
                    except ValueError:
                        raised = ValueError
                    want = ValueError if error == "shape" and not integer_fails else IndexError
                    if raised is not want:
                        raise AssertionError(f"NumPy raises {raised} for {text}, the oracle expects {want}")
                    raise ExpectedError(error)
            else:
                continue
            val = np.asarray(val)
            if val.dtype.kind not in "biuf" or val.dtype.itemsize > 8:
                continue
            if 17 not in FOCUS and (val.dtype in (np.int8, np.int16, np.uint8, np.float16) or val.dtype.kind == "u"):
                continue
        except ExpectedError as e:
            val = None
            errors[f"v{k}"] = e.kind
        except DeprecationWarning:
            val = None
            if text is None:
                continue
            errors[f"v{k}"] = "shape" if integer_fails else "value"
        except OverflowError:
            # A Python integer out of an array's dtype (NEP 50; only once narrow dtypes are
            # drawn): a rule over the literal, an error before anything runs.
            val = None
            if text is None:
                continue
            errors[f"v{k}"] = "shape"
        except (ValueError, IndexError) as e:
            val = None
            if text is None:
                continue
            # Forms 13 to 15: an index array's value out of range is data (a value error); an integer
            # index out of range is a shape rule.
            data = (kind == 25 and form in (13, 14, 15) and isinstance(e, IndexError) and not integer_fails
                    and not isinstance(e, np.AxisError)
                    and ("out of bounds" in str(e) or "non-empty take from an empty" in str(e)))
            errors[f"v{k}"] = "value" if data else "shape"
        except TypeError:
            continue
        name = f"v{k}"
        lines.extend(f"{name} = {text}".split("\n"))  # a rebinding statement follows its copy
        env[name] = (val, exact)
        # Computed from float32 data (an operand of dtype float32, or computed from one): its
        # rounding errors are float32's even in a float64 result (outer(b, sin(f))).
        if any(env[o][0] is not None and (env[o][0].dtype == np.float32 or o in low) for o in (x, y)):
            low.add(name)
        if any(env[o][0] is not None and (env[o][0].dtype == np.float16 or o in half) for o in (x, y)) or \
                (val is not None and val.dtype == np.float16):
            half.add(name)
        statements.append(name)
    binds = ", ".join([f"n={n}", f"m={m}"] + [f"{nm}={literal(v)}" for nm, v in inputs])
    expected = {}
    for s in statements:
        lines.append(f":eval {s} with {binds}")
        v, exact = env[s]
        if v is None:
            expected[str(len(lines))] = {"error": errors[s]}
        else:
            tolerance = 4e-3 if s in half else 1e-5 if v.dtype == np.float32 or s in low else 1e-9
            expected[str(len(lines))] = {"dtype": str(v.dtype), "shape": list(v.shape), "value": value_json(v),
                                         "exact": bool(exact), "tolerance": tolerance}
    return {"n": n, "m": m, "program": "\n".join(lines) + "\n", "expected": expected}


def main():
    rng = random.Random(SEED)
    out = [make_program(rng) for _ in range(COUNT)]
    path = __file__.rsplit("/", 2)[0] + "/tests/data/numpy_programs" + ("_" + NAME if FOCUS else "") + ".jsonl"
    with open(path, "w") as f:
        f.write(json.dumps({"made_by": "scripts/make_program_oracle.py", "count": COUNT, "seed": SEED,
                            "focus": FOCUS, "numpy": np.__version__, "promotion": "weak (NEP 50)"}) + "\n")
        for p in out:
            f.write(json.dumps(p) + "\n")
    print(f"wrote {len(out)} programs to {path}")


if __name__ == "__main__":
    main()
