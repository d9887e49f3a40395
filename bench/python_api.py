"""The Python API's figures (issue: Python programs), in one run:

- tracing cost per op: a function of 2,000 elementwise ops traced (milliseconds, microseconds
  per op), beyond which the solver's own work is measured apart (the same program run as text);
- evaluation overhead: a 10-op function on 10-element arrays, the trace called with NumPy
  arrays vs NumPy calling the function eagerly (medians of repeated runs);
- the fused chain on 10^7 elements: `t.optimize().run(...)` vs NumPy eagerly;
- a campaign of CASES random-program cases on 2 local Dask workers vs one process.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/python_api.py [CASES]
"""
import os
import statistics
import sys
import time

import numpy as np

import shapelab as sl

CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 100000


def median_seconds(f, repeat, inner=1):
    f()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times)


def chain(x):
    for _ in range(1000):
        x = x * 1.0001 + 0.5
    return x


def ten(x, y):
    a = x * y + 1.0
    b = np.exp(a) - y
    c = np.maximum(b, 0.0)
    d = c * c + x
    return np.sqrt(d) / (y + 2.0)


def fused(x, y):
    return np.tanh(x * y + 1.0) * 0.5 + np.exp(-(x - y) ** 2)


def main():
    # Tracing: 2,000 ops; the same program built from its text measures the session's own work
    # (parsing, shape rules, the solver's questions) without the tracing layer.
    t0 = time.perf_counter()
    t = sl.trace(chain, sl.array(("n",)))
    traced = time.perf_counter() - t0
    ops = 2000
    text = t.program
    p = sl.Program()
    t0 = time.perf_counter()
    for line in text.splitlines():  # as the trace runs its statements: replies not rendered
        p._execute(line, read=False)
    built = time.perf_counter() - t0
    print(f"trace of {ops} ops: {traced * 1e3:.1f} ms ({traced / ops * 1e6:.1f} us per op; the program "
          f"built from its text: {built * 1e3:.1f} ms, so tracing adds {(traced - built) / ops * 1e6:.1f} us per op)")

    t = sl.trace(ten, sl.array(("n",)), sl.array(("n",)))
    rng = np.random.default_rng(0)
    x, y = rng.random(10), rng.random(10)
    eager = median_seconds(lambda: ten(x, y), 25, 400)
    ours = median_seconds(lambda: t(x=x, y=y), 25, 400)
    print(f"10-op function on 10 elements: NumPy {eager * 1e6:.2f} us, trace called {ours * 1e6:.2f} us "
          f"({ours / eager:.2f}x)")

    t = sl.trace(fused, sl.array(("n",)), sl.array(("n",)))
    opt = t.optimize()
    x, y = rng.random(10**7), rng.random(10**7)
    assert np.allclose(opt.run(x=x, y=y), fused(x, y), rtol=1e-12)
    eager = median_seconds(lambda: fused(x, y), 5)
    ours = median_seconds(lambda: opt.run(x=x, y=y), 5)
    print(f"fused chain on 10^7 elements: NumPy {eager * 1e3:.1f} ms, t.optimize().run {ours * 1e3:.1f} ms "
          f"({eager / ours:.2f}x faster)")

    t0 = time.perf_counter()
    one = sl.campaign(cases=CASES, seed=1, progress=False)
    single = time.perf_counter() - t0
    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: os.getpid())  # workers up before the clock starts
        t0 = time.perf_counter()
        two = sl.campaign(cases=CASES, seed=1, client=client, progress=False)
        spread = time.perf_counter() - t0
    same = {k: one[k] for k in ("cases", "passed", "evaluations", "errors_agreed", "rewritten", "failure")} == \
        {k: two[k] for k in ("cases", "passed", "evaluations", "errors_agreed", "rewritten", "failure")}
    print(f"campaign of {CASES} cases: one process {single:.1f} s, 2 Dask workers {spread:.1f} s "
          f"({single / spread:.2f}x; same result: {same})")


if __name__ == "__main__":
    main()
