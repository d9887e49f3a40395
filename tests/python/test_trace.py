"""shapelab.trace, shapelab.Program and NumPy arrays in and out, against independent oracles:
NumPy itself (the traced functions called on concrete arrays) and `shapelab run --json` of the
printed program (the command line reading the text, not the trace's session).

Run by ctest PythonTest (PYTHONPATH=<build>/python, SHAPELAB=<build>/shapelab)."""
import json
import os
import subprocess
import tempfile
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import shapelab as sl
import traced_programs as corpus

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPELAB = os.environ.get("SHAPELAB", os.path.join(HERE, "..", "..", "build", "shapelab"))


def cli_json(text):
    """`shapelab run --json` of a program: {line number: reply}."""
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([SHAPELAB, "run", "--json", path], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    return {r["line"]: r for r in map(json.loads, out.stdout.splitlines())}


def concrete_inputs(args, point, ints, rng):
    """NumPy arguments for a traced function's specs at `point` (sizes), seeded."""
    out = []
    for name, spec in args:
        if isinstance(spec, sl.SizeSpec):
            out.append(point[spec.name])
            continue
        shape = tuple(d if isinstance(d, int) else eval(d, {}, point) for d in spec.shape)
        if spec.dtype == "bool":
            out.append(rng.random(shape) < 0.5)
        elif spec.dtype.startswith("int"):
            out.append(rng.integers(0, max(1, point[ints[name]]), size=shape).astype(spec.dtype))
        else:
            out.append(rng.standard_normal(shape).astype(spec.dtype))
    return out


def parameter_names(fn):
    import inspect
    return list(inspect.signature(fn).parameters)


# --- The corpus: every function traced unchanged --------------------------------------------------


@pytest.mark.parametrize("entry", corpus.CORPUS, ids=[e[0].__name__ for e in corpus.CORPUS])
def test_traced_function_agrees_with_cli_and_numpy(entry):
    fn, specs, assume, points, ints, exact = entry
    t = sl.trace(fn, *specs, assume=assume)
    # The printed program, run by the command line, gives each output the same answer.
    text = t.program
    n = len(text.splitlines())
    replies = cli_json(text + "".join(f":shape {o.name}\n" for o in t.outputs))
    for i, o in enumerate(t.outputs):
        want = dict(replies[n + 1 + i])
        del want["line"]
        assert o.to_dict() == want, (fn.__name__, o.name)
    # At each point, the trace's evaluation is NumPy's (or raises the kind of error NumPy raises).
    names = parameter_names(fn)
    rng = np.random.default_rng(7)
    for point in points:
        args = concrete_inputs(list(zip(names, specs)), point, ints, rng)
        try:
            want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            error = None
        except (ValueError, IndexError, ZeroDivisionError) as e:
            want, error = None, e
        bindings = {k: v for k, v in zip(names, args)}
        # Sizes that no input's shape says are given; the others are read from the arrays.
        bindings.update({k: v for k, v in point.items() if k not in bindings and k in [s.name for s in specs
                                                                                     if isinstance(s, sl.SizeSpec)]})
        if error is not None:
            expected = IndexError if isinstance(error, IndexError) else ValueError
            with pytest.raises(expected):
                t(**bindings)
            continue
        for optimized in (False, True):
            got = t(optimized=optimized, checked=True, **bindings)
            wants = want if isinstance(want, tuple) else (want,)
            gots = got if isinstance(got, tuple) else (got,)
            assert len(gots) == len(wants)
            for g, w in zip(gots, wants):
                w = np.asarray(w)
                assert g.shape == w.shape and g.dtype == w.dtype, (fn.__name__, point, g.shape, w.shape, g.dtype, w.dtype)
                if exact:
                    assert np.array_equal(g, w, equal_nan=True), (fn.__name__, point)
                else:
                    np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True)
                # The symbolic shape read at the point is the value's.
            for o, g in zip(t.outputs, gots):
                if o.status != "error":
                    dims = [d if isinstance(d, int) else None for d in o.shape]
                    assert all(d is None or d == s for d, s in zip(dims, g.shape))


# --- The tracing API ------------------------------------------------------------------------------


def layer(x, w, b):
    h = x @ w + b
    return h - h.mean(axis=1)  # keepdims forgotten


def test_trace_reports_the_forgotten_keepdims():
    t = sl.trace(layer, sl.array(("n", "d")), sl.array(("d", "k")), sl.array(("k",)), assume=["d >= 1"])
    out = t.outputs[0]
    assert out.name == "out" and out.status == "runtime-check"
    assert out.checks == ["n == 1 or k == 1 or n == k"]
    assert out.violating is not None and out.violating["n"] != out.violating["k"]
    e = t.errors()
    assert e.condition == "not (n == 1 or k == 1 or n == k)" and e.failing
    assert t.explain(out).obligations
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 3)), rng.normal(size=3)
    assert np.array_equal(t(x=x, w=w, b=b), layer(x, w, b))
    assert np.array_equal(t.optimize().run(x=x, w=w, b=b), layer(x, w, b))
    with pytest.raises(ValueError, match="could not be broadcast"):
        t(x=x, w=rng.normal(size=(4, 2)), b=rng.normal(size=2))
    with pytest.raises(sl.ShapeError):
        t(x=x, w=rng.normal(size=(4, 2)), b=rng.normal(size=2))


def test_shape_dependent_branches_raise_and_decided_ones_run():
    def branchy(x):
        if x.shape[0] > 1:
            return x[1:]
        return x

    with pytest.raises(sl.ShapeDependentBranch, match="n >= 2"):
        sl.trace(branchy, sl.array(("n",)))
    t = sl.trace(branchy, sl.array(("n",)), assume=["n >= 3"])
    assert t.outputs[0].shape == ("n - 1",)
    with pytest.raises(sl.ShapeDependentBranch):
        sl.trace(lambda x: np.zeros(len(x)), sl.array(("n",)))
    with pytest.raises(sl.ShapeDependentBranch):
        sl.trace(lambda x: x.reshape(int(x.shape[0]), -1), sl.array(("n", 2)))
    # Constant dims are ints; len() of one is fine.
    assert sl.trace(lambda x: np.zeros(len(x)), sl.array((3, "m"))).outputs[0].shape == (3,)
    # sl.ifelse chooses on sizes without a Python branch.
    t = sl.trace(lambda x: sl.ifelse(x.shape[0] > 1, x[1:], x), sl.array(("n",)))
    assert t.outputs[0].status in ("valid", "runtime-check")


def test_traced_status_at_each_point_agrees_with_numpy():
    # Each function traced under assumptions fixing every size is decided there (valid or
    # error), symbolically; NumPy running it at those sizes must agree. (A size statement whose
    # value was a constant once lost its division-by-zero check this way.)
    def heads(x, h):
        b, t, d = x.shape
        return x.reshape(b, t, h, d // h).sum(axis=2)

    def strided(s, w, hop):
        count = (s.shape[0] - w) // hop + 1
        return s[np.arange(count)[:, None] * hop + np.arange(w)[None, :]]

    def halves(x, k):
        n = x.shape[0]
        return x[: n // k] + x[n % k: n % k + n // k]

    cases = [(heads, lambda p: [np.ones((2, 1, p[0])), p[1]], [sl.array(("b", "t", "d")), sl.size("h")], ("d", "h"),
              {"b": 2, "t": 1}),
             (strided, lambda p: [np.ones(p[0]), p[1], p[2]], [sl.array(("n",)), sl.size("w"), sl.size("hop")],
              ("n", "w", "hop"), {}),
             (halves, lambda p: [np.ones(p[0]), p[1]], [sl.array(("n",)), sl.size("k")], ("n", "k"), {})]
    import itertools
    for fn, make, specs, names, fixed in cases:
        for point in itertools.product(range(4), repeat=len(names)):
            assume = [f"{k} == {v}" for k, v in zip(names, point)] + [f"{k} == {v}" for k, v in fixed.items()]
            out = sl.trace(fn, *specs, assume=assume).outputs[0]
            assert out.status in ("valid", "error"), (fn.__name__, point, out)
            try:
                fn(*make(point))
                numpy_ok = True
            except (ValueError, IndexError, ZeroDivisionError):
                numpy_ok = False
            assert (out.status == "valid") == numpy_ok, (fn.__name__, point, out)


def test_unsupported_functions_are_named_and_numpy_is_restored():
    with pytest.raises(sl.Unsupported, match="numpy.fft.fft"):
        sl.trace(lambda x: np.fft.fft(x), sl.array(("n",)))
    zeros = np.zeros

    def boom(x):
        np.zeros((x.shape[0], 2))
        raise RuntimeError("the user's own error")

    with pytest.raises(RuntimeError, match="own error"):
        sl.trace(boom, sl.array(("n",)))
    assert np.zeros is zeros and np.zeros(2).tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="argument 'o' of the traced function is object"):
        sl.trace(lambda x, o: x + o, sl.array(("n",)), object())
    with pytest.raises(sl.SyntaxError):
        sl.array(("n +",))
    with pytest.raises(sl.SyntaxError):
        sl.trace(lambda x: x, sl.array(("n",)), assume=["n >="])


def test_sizes_creation_functions_methods_and_item_assignment():
    def f(x, k):
        n, d = x.shape
        y = np.zeros((n, d + k))
        y[:, :d] = x
        y[:, d:] += 1.0
        z = np.arange(n * 2).reshape(n, 2).astype(np.float64)
        return y, z.T, np.concatenate([x, x], axis=1).sum(axis=0)

    t = sl.trace(f, sl.array(("n", "d")), sl.size("k"))
    assert [o.shape for o in t.outputs] == [("n", "d + k"), (2, "n"), ("2*d",)]
    x = np.arange(6.0).reshape(3, 2)
    got = t(x=x, k=2)
    want = f(x, 2)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_array_api_namespace():
    def f(x):
        xp = x.__array_namespace__()
        return xp.concat([x, xp.permute_dims(x, (1, 0)).T], axis=0).astype(xp.float32)

    t = sl.trace(f, sl.array(("n", "m")))
    assert t.outputs[0].shape == ("2*n", "m") and t.outputs[0].dtype == "float32"


def test_inputs_are_read_in_place_and_results_own_their_buffer():
    p = sl.Program("param n\nx = input((n,), float64)\ny = x.reshape(1, -1)\nz = x * 2.0")
    x = np.arange(5.0)
    y = p.eval("y", x=x)  # n read from x's shape
    assert y.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0]]
    assert np.shares_memory(y, x) and not y.flags.writeable  # a view of the input: read-only
    z = p.eval("z", x=x)
    assert z.flags.writeable and not np.shares_memory(z, x)
    assert p.eval("z", x=x[::-1]).tolist() == [8.0, 6.0, 4.0, 2.0, 0.0]  # a strided input is copied
    with pytest.raises(TypeError, match="complex128"):
        p.eval("z", x=np.zeros(3, dtype=complex))
    # Two arrays that give one size different values: an error naming both.
    q = sl.Program("param n, m\nx = input((n,), float64)\ny = input((m, n), float64)\nz = x + y")
    with pytest.raises(sl.Error, match=r"disagree on n: x, of shape \(3,\) for \(n,\), gives n = 3; y, of shape"):
        q.eval("z", x=np.zeros(3), y=np.zeros((1, 2)))
    assert q.eval("z", x=np.zeros(2), y=np.ones((4, 2))).shape == (4, 2)


def test_program_results_are_the_cli_json():
    text = "param n, m\nassume n >= 1\nx = input((n, m), float32)\ny = x.sum(axis=0) + x[0]\nw = x.reshape(m, -1)\n"
    p = sl.Program(text)
    replies = cli_json(text + ":shape w\n:explain y\n:errors\n:decide n >= 2\n:optimize y\n")
    strip = lambda r: {k: v for k, v in r.items() if k != "line"}
    assert p.shape("w").to_dict() == strip(replies[6])
    assert p.explain("y").to_dict() == strip(replies[7])
    assert p.errors().to_dict() == strip(replies[8])
    assert p.decide("n >= 2").to_dict() == strip(replies[9])
    opt = p.optimize("y").to_dict()
    assert {k: v for k, v in opt.items() if k != "seconds"} == {k: v for k, v in strip(replies[10]).items() if k != "seconds"}
    assert p["y"].to_dict() == strip(replies[4])
    assert p.shape("w") == sl.Program(text).shape("w") and "Result[shape]" in repr(p.shape("w"))
    assert p.rules() and all("rule" in r for r in p.rules())
    with pytest.raises(sl.SyntaxError) as e:
        p.run("v = x +")
    assert e.value.position == 7 and e.value.line == 6  # the caret after the operator
    assert p.shape("y").shape == ("m",)


def test_concurrent_traces_take_turns():
    results, errors = [], []

    def work(i):
        try:
            t = sl.trace(lambda x: np.zeros((x.shape[0], i + 1)) + x[:, None], sl.array(("n",)))
            results.append((i, t.outputs[0].shape))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and sorted(results) == [(i, ("n", i + 1)) for i in range(6)]


# --- Hypothesis: random NumPy expressions, traced and evaluated, against NumPy -------------------

UNARY = [np.exp, np.negative, np.abs, np.tanh, lambda a: a.sum(axis=-1), lambda a: a.T,
         lambda a: a[..., ::2], lambda a: a.reshape(-1), lambda a: a.max(axis=0, keepdims=True), lambda a: a[None]]
BINARY = [np.add, np.multiply, np.maximum, lambda a, b: a - b, lambda a, b: np.where(a > b, a, b)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       ops=st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1), st.booleans()),
                    min_size=1, max_size=4),
       flip=st.booleans(), seed=st.integers(0, 2**16))
def test_random_expressions_agree_with_numpy(shapes, ops, flip, seed):
    sa, sb = shapes.input_shapes
    if flip and len(sb) == len(sa):
        sb = sb[::-1]  # not always broadcastable: errors must agree too

    def fn(a, b):
        for u, bi, use_b in ops:
            a = BINARY[bi](a, b) if use_b else UNARY[u](a)
        return a

    # Each dim a size parameter of its own, so the trace is symbolic; evaluated at the drawn shape.
    spec_a = sl.array(tuple(f"a{i}" for i in range(len(sa))))
    spec_b = sl.array(tuple(f"b{i}" for i in range(len(sb))))
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    try:
        want, error = fn(a, b), None
    except (ValueError, IndexError) as e:
        want, error = None, e
    try:
        t = sl.trace(fn, spec_a, spec_b)
    except sl.ShapeDependentBranch:
        return
    except sl.Error as e:
        # Refused while building (a rank error): NumPy refuses too.
        assert error is not None, f"shapelab refused {e} where NumPy computed"
        return
    if error is not None:
        with pytest.raises(IndexError if isinstance(error, IndexError) else ValueError):
            t(a=a, b=b)
        return
    got = t(a=a, b=b)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, equal_nan=True)


# --- Campaigns ------------------------------------------------------------------------------------


def cli_proptest(*args):
    out = subprocess.run([SHAPELAB, "proptest", "--json", *args], capture_output=True, text=True, timeout=600)
    return json.loads(out.stdout)


def comparable(r):
    return {k: r[k] for k in ("cases", "seed", "mode", "passed", "evaluations", "errors_agreed", "rewritten", "fired",
                              "failure", "script", "case")}


def test_campaign_in_process_is_one_process():
    want = cli_proptest("--cases", "60", "--seed", "11", "--plant-failure", "np.flip")
    got = sl.campaign(cases=60, seed=11, planted="np.flip", shards=3, progress=False)
    assert not want["passed"] and comparable(got) == comparable(want)
    want = cli_proptest("--cases", "40", "--seed", "3")
    assert comparable(sl.campaign(cases=40, seed=3, shards=4, progress=False)) == comparable(want)


def test_campaign_on_a_local_dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = sl.campaign(cases=80, seed=11, planted="np.flip", client=client, progress=False)
        want = cli_proptest("--cases", "80", "--seed", "11", "--plant-failure", "np.flip")
        assert comparable(got) == comparable(want) and got["shards"] == 8
        passing = sl.campaign(cases=50, seed=3, client=client, progress=False)
        assert comparable(passing) == comparable(cli_proptest("--cases", "50", "--seed", "3"))


def test_grad_and_vectorize_in_a_trace():
    # A least-squares cost: its gradient is 2 A^T (A w - b), which NumPy computes by hand.
    def loss_grad(a, w, b):
        cost = np.sum((a @ w - b) ** 2)
        return sl.grad(cost, w), sl.grad(cost, [a, b])[1]

    t = sl.trace(loss_grad, sl.array(("n", "d")), sl.array(("d",)), sl.array(("m",)))
    assert [o.shape for o in t.outputs] == [("d",), ("m",)]
    rng = np.random.default_rng(4)
    a, w, b = rng.standard_normal((5, 3)), rng.standard_normal(3), rng.standard_normal(5)
    gw, gb = t(a=a, w=w, b=b)
    assert np.allclose(gw, 2 * a.T @ (a @ w - b)) and np.allclose(gb, -2 * (a @ w - b))
    # Broadcasting in the backward pass at run time: b of one element is summed over n.
    gw1, gb1 = t(a=a, w=w, b=b[:1])
    assert gb1.shape == (1,) and np.allclose(gb1, [-2 * np.sum(a @ w - b[0])])

    # vectorize: a batch of w, each example's cost, as NumPy computes it per example.
    def batched(a, w, b, wb):
        cost = np.sum((a @ w - b) ** 2)
        return sl.vectorize(cost, [(w, wb)])

    v = sl.trace(batched, sl.array(("n", "d")), sl.array(("d",)), sl.array(("n",)), sl.array(("k", "d")))
    assert v.outputs[0].shape == ("k",)
    wb = rng.standard_normal((4, 3))
    got = v(a=a, w=w, b=b, wb=wb)
    assert np.allclose(got, [np.sum((a @ x - b) ** 2) for x in wb])
    with pytest.raises(sl.Error, match="inside a function sl.trace runs"):
        sl.grad(np.float64(1.0), a)


def test_ctrl_c_stops_an_evaluation_and_the_program_goes_on():
    # SIGINT, as a notebook's interrupt sends it, during a product of 3000 x 3000 matrices
    # (minutes of work): KeyboardInterrupt within seconds, and the program still evaluates.
    import signal
    import time

    p = sl.Program("param n\nbig = np.ones((n, n)) @ np.ones((n, n))\nsmall = np.ones((n,)) * 2.0")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.time()
    with pytest.raises(KeyboardInterrupt):
        p.eval("big", n=3000)
    timer.join()
    assert time.time() - start < 5
    assert p.eval("small", n=3).tolist() == [2.0, 2.0, 2.0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's handler is back


def test_time_measures_each_backend_and_reports_errors_as_eval_does():
    p = sl.Program("param n\nx = input((n,), float64)\ny = exp(x) * 2.0 + x\ns = input((), float64)\nt = (s + 1.0) * s")
    settings_ = [dict(backend="reference"), dict(), dict(fusion=False), dict(block=1, libm=True),
                 dict(views=False), dict(scalar_code=False)]
    for kw in settings_:
        figures = p.time("y", n=1000, repeat=3, inner=2, **kw)
        assert len(figures) == 3 and all(isinstance(f, float) and 0 < f < 1 for f in figures), kw
    assert len(p.time("t", repeat=2, inner=50)) == 2
    # An input of the wrong shape fails as eval fails; a backend that does not exist is refused.
    with pytest.raises(sl.Error, match="declared shape"):
        p.time("y", n=3, x=np.ones(4))
    with pytest.raises(ValueError, match="backend must be"):
        p.time("y", n=3, backend="gpu")
    with pytest.raises(ValueError, match="at least 1"):
        p.time("y", n=3, repeat=0)
