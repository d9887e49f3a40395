"""shapelab's interpreters against NumPy on 10**6 elements, same machine, same run: np.take with
an index array, np.cumsum and np.sort (issue 67's figure: at least as fast as NumPy). shapelab's times are
its `:time` medians (reference and optimized interpreter, inputs loaded from .npy files); NumPy's
the median of 25 timeit runs.

Run: /usr/bin/python3 bench/numpy_kernels.py [path/to/shapelab]
"""
import os
import re
import subprocess
import sys
import tempfile
import timeit

import numpy as np

SHAPELAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "shapelab")
N = 10**6


def main():
    rng = np.random.default_rng(0)
    x, j = rng.random(N), rng.integers(0, N, N)
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), x)
        np.save(os.path.join(d, "j.npy"), j)
        loads = f'x=load("{d}/x.npy"), j=load("{d}/j.npy")'
        program = (f"x = input(({N},), float64)\nj = input(({N},), int64)\n"
                   "c = np.cumsum(x)\nt = np.take(x, j)\ns = np.sort(x)\n"
                   f":time c with {loads}\n:time t with {loads}\n:time s with {loads}\n")
        path = os.path.join(d, "bench.shl")
        with open(path, "w") as f:
            f.write(program)
        out = subprocess.run([SHAPELAB, "run", path], capture_output=True, text=True, check=True).stdout
    times = {m.group(1): (m.group(2), m.group(3)) for m in
             re.finditer(r"^(\w): reference (\S+ \S+), optimized (\S+ \S+)", out, re.M)}
    numpy = {"c": lambda: np.cumsum(x), "t": lambda: np.take(x, j), "s": lambda: np.sort(x)}
    print(f"{'op':8} {'reference':>12} {'optimized':>12} {'NumPy':>10}")
    for name, label in (("c", "cumsum"), ("t", "take"), ("s", "sort")):
        ms = sorted(timeit.repeat(numpy[name], number=1, repeat=25))[12] * 1e3
        print(f"{label:8} {times[name][0]:>12} {times[name][1]:>12} {ms:>7.2f} ms")


if __name__ == "__main__":
    main()
