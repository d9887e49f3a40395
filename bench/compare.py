#!/usr/bin/env python3
"""Compares two builds' bench_programs on the same benchmarks: each round runs both binaries, in
alternating order, and the minimum of every benchmark's time over the rounds is kept. (On a
shared or virtual machine the second of two processes run back to back is often much slower —
60-70% on the 2-core machine the figures were taken on — so a fixed order would measure the
order, not the builds.)

Usage: /usr/bin/python3 bench/compare.py BEFORE/bench_programs AFTER/bench_programs [ROUNDS] [FILTER]
e.g.   bench/compare.py /tmp/base/build/bench/bench_programs build/bench/bench_programs 6 \\
           'BM_InferAndRewrite/nodes:(1000|10000|100000)/parts:1/apart:0'
"""
import collections
import json
import subprocess
import sys

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    bins = {"before": sys.argv[1], "after": sys.argv[2]}
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    pattern = sys.argv[4] if len(sys.argv) > 4 else "BM_InferAndRewrite/nodes:(1000|10000|100000)/parts:1/apart:0"
    best = collections.defaultdict(lambda: float("inf"))
    for r in range(rounds):
        order = list(bins.items()) if r % 2 == 0 else list(bins.items())[::-1]
        for which, binary in order:
            out = subprocess.run([binary, "--benchmark_filter=" + pattern, "--benchmark_format=json"],
                                 capture_output=True, text=True, check=True).stdout
            for b in json.loads(out)["benchmarks"]:
                ms = b["real_time"] * UNIT_MS[b["time_unit"]]
                best[(b["name"], which)] = min(best[(b["name"], which)], ms)
    for name in sorted({n for n, _ in best}):
        before, after = best[(name, "before")], best[(name, "after")]
        print(f"{name:75s} before {before:9.1f} ms  after {after:9.1f} ms  {100 * (after / before - 1):+5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
