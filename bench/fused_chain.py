#!/usr/bin/env python3
"""The 8-op chain exp(-((sin(x)*0.5 + cos(x))**2)) + x on 10**7 float64 values, timed in one run:
shapelab's optimized and reference interpreters (`:time`, medians) and NumPy (median of the same
number of runs, same data, same machine), printed as ratios; the optimized interpreter also on one
thread (NumPy uses one core; on a shared or virtual machine the second core's share varies).

Usage: /usr/bin/python3 bench/fused_chain.py [--shapelab build/shapelab] [--n 10000000]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np

EXPR = "exp(-((sin(x)*0.5 + cos(x))**2)) + x"


def chain_input(n):
    """The chain's x: n float64 values in [-8, 8), exact multiples of 1/256, seeded."""
    return (np.random.default_rng(2026).integers(0, 4096, n) - 2048) / 256.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapelab", default=os.path.join(os.path.dirname(__file__), "..", "build", "shapelab"))
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    args.shapelab = os.path.abspath(args.shapelab)  # the script runs in a temporary directory
    x = chain_input(args.n)
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), x)
        script = os.path.join(d, "chain.shl")
        with open(script, "w") as f:
            f.write("param n\nx = input((n,), float64)\n")
            f.write("z = " + EXPR + "\n")
            f.write(f'z_opt = z\n:time z with n={args.n}, x=load("x.npy")\n')
        def timed(env=None):
            out = subprocess.run([args.shapelab, "run", "--json", script], capture_output=True, text=True, cwd=d,
                                 check=True, env=env)
            return [json.loads(l) for l in out.stdout.splitlines() if '"command": "time"' in l][0]
        timing = timed()
        # The same on one thread: what one core does, whatever the other core is doing.
        one_thread = timed(dict(os.environ, SHAPELAB_THREADS="1"))["optimized_s"]
    times = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        np.exp(-((np.sin(x) * 0.5 + np.cos(x)) ** 2)) + x
        times.append(time.perf_counter() - t)
    numpy_s = sorted(times)[len(times) // 2]
    ref, opt = timing["reference_s"], timing["optimized_s"]
    print(f"n = {args.n}, NumPy {np.__version__}, {os.cpu_count()} cores")
    print(f"optimized  {opt * 1e3:9.2f} ms (median of {timing['optimized_repeats']})")
    print(f"1 thread   {one_thread * 1e3:9.2f} ms (optimized, SHAPELAB_THREADS=1)")
    print(f"reference  {ref * 1e3:9.2f} ms (median of {timing['reference_repeats']})")
    print(f"numpy      {numpy_s * 1e3:9.2f} ms (median of {args.repeats})")
    print(f"optimized vs numpy:     {numpy_s / opt:6.2f}x  (target >= 3)")
    print(f"optimized vs reference: {ref / opt:6.2f}x  (target >= 10)")
    print(f"1 thread vs numpy:      {numpy_s / one_thread:6.2f}x")


if __name__ == "__main__":
    main()
