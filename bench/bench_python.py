#!/usr/bin/python3
"""Python-side figures of issue 8, each next to its NumPy anchor timed in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py

- time of `import shapelab` in a fresh interpreter (median of 7), next to `import numpy`;
- µs per sl.broadcast_shapes call on concrete shapes, next to np.broadcast_shapes on the same
  shapes (best of 5 timeit repeats).
"""
import statistics
import subprocess
import sys
import timeit


def import_seconds(module):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(7)]
    return statistics.median(runs)


def per_call_us(stmt, setup, number=20000):
    return min(timeit.repeat(stmt, setup, number=number, repeat=5)) / number * 1e6


def main():
    ours, numpy = import_seconds("shapelab"), import_seconds("numpy")
    print(f"import shapelab: {ours * 1e3:.1f} ms   (import numpy: {numpy * 1e3:.1f} ms)")
    setup = "import numpy as np, shapelab as sl"
    cases = {
        "rank-4, 2 operands": "(8, 1, 6, 1), (7, 1, 5)",
        "rank-2, 2 operands": "(3, 1), (4,)",
        "rank-3, 4 operands": "(5, 1, 3), (1, 4, 1), (4, 3), (1,)",
    }
    for name, args in cases.items():
        a = per_call_us(f"sl.broadcast_shapes({args})", setup)
        b = per_call_us(f"np.broadcast_shapes({args})", setup)
        print(f"broadcast_shapes {name}: shapelab {a:.2f} us, numpy {b:.2f} us, ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
