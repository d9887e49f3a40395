#!/usr/bin/env python3
"""The gradient of the fused chain's cost against its forward pass: cost = sum(exp(-((sin(x)*0.5 +
cos(x))**2)) + x) on 10**7 float64 values and gx = grad(cost, x), each timed by `:time` (medians)
in the optimized and the reference interpreter, in one run. The figure: the gradient's time over
the cost's (target <= 2 in the optimized interpreter).

Usage: /usr/bin/python3 bench/grad.py [--shapelab build/shapelab] [--n 10000000]
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

from fused_chain import EXPR, chain_input  # the chain, and its data, of bench/fused_chain.py


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapelab", default=os.path.join(os.path.dirname(__file__), "..", "build", "shapelab"))
    ap.add_argument("--n", type=int, default=10**7)
    args = ap.parse_args()
    args.shapelab = os.path.abspath(args.shapelab)
    x = chain_input(args.n)
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), x)
        script = os.path.join(d, "grad.shl")
        with open(script, "w") as f:
            f.write("param n\nx = input((n,), float64)\n")
            f.write("cost = np.sum(" + EXPR + ")\n")
            f.write("gx = grad(cost, x)\n")
            for name in ("cost", "gx"):
                f.write(f':time {name} with n={args.n}, x=load("x.npy")\n')
        out = subprocess.run([args.shapelab, "run", "--json", script], capture_output=True, text=True, cwd=d, check=True)
        timing = {t["name"]: t for t in (json.loads(l) for l in out.stdout.splitlines() if '"command": "time"' in l)}
    cost, grad = timing["cost"], timing["gx"]
    print(f"n = {args.n}, {os.cpu_count()} cores")
    print(f"cost      optimized {cost['optimized_s'] * 1e3:9.2f} ms, reference {cost['reference_s'] * 1e3:9.2f} ms")
    print(f"grad      optimized {grad['optimized_s'] * 1e3:9.2f} ms, reference {grad['reference_s'] * 1e3:9.2f} ms")
    print(f"grad / cost, optimized: {grad['optimized_s'] / cost['optimized_s']:5.2f}  (target <= 2)")
    print(f"grad / cost, reference: {grad['reference_s'] / cost['reference_s']:5.2f}")


if __name__ == "__main__":
    main()
