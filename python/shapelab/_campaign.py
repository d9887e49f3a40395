"""Property campaigns over many processes (shapelab.campaign).

The cases of a `shapelab proptest` run are split into shards by index (case k, seed + k, belongs
to shard k mod N); each shard runs in a worker (a Dask distributed client's, or this process)
and keeps the counts of every case it ran. Merging takes the first failure by case index and
the counts of the cases up to it, so the result is the one a single process reports: the same
cases, the same (shrunk) failure, the same totals.
"""
import sys
import time

from ._shapelab import _proptest


def _run_shard(cases, seed, mode, max_nodes, shard, shards, planted):
    return _proptest(cases, seed, mode, max_nodes, shard, shards, 1, planted)


class _Progress:
    """A progress bar on a terminal (stderr), nothing otherwise."""

    def __init__(self, total, enabled):
        self.total, self.done = total, 0
        self.enabled = enabled if enabled is not None else sys.stderr.isatty()
        self.start = time.monotonic()

    def step(self):
        self.done += 1
        if self.enabled:
            width = 30
            filled = width * self.done // self.total
            sys.stderr.write(f"\rcampaign [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} shards"
                             f" {time.monotonic() - self.start:.1f} s")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def campaign(cases=1000, seed=1, mode="numpy", max_nodes=10, client=None, shards=None, progress=None,
             planted=""):
    """Runs `cases` random-program cases (as `shapelab proptest --cases C --seed S --mode M
    --max-nodes K`) split into shards over a Dask distributed `client` (None: in this process).
    Returns the dict `proptest --json` prints, with "shards" added. `planted` (for testing the
    harness) makes a program with a statement containing that text fail."""
    if cases < 1:
        raise ValueError("a campaign has at least one case")
    if shards is None:
        workers = len(client.scheduler_info()["workers"]) if client is not None else 1
        shards = max(1, min(cases, 4 * workers))
    start = time.monotonic()
    bar = _Progress(shards, progress)
    results = []
    if client is None:
        for k in range(shards):
            results.append(_run_shard(cases, seed, mode, max_nodes, k, shards, planted))
            bar.step()
    else:
        from distributed import as_completed
        futures = [client.submit(_run_shard, cases, seed, mode, max_nodes, k, shards, planted, pure=False)
                   for k in range(shards)]
        for f in as_completed(futures):
            results.append(f.result())
            bar.step()
    seconds = time.monotonic() - start
    failing = [r for r in results if r["failed_at"] is not None]
    first = min(failing, key=lambda r: r["failed_at"]) if failing else None
    last = first["failed_at"] if first else cases - 1
    totals = {"evaluations": 0, "errors_agreed": 0, "rewritten": 0}
    fired = {}
    run = 0
    for r in results:
        for i, k in enumerate(r["indices"]):
            if k <= last:
                run += 1
                for key in totals:
                    totals[key] += r[key][i]
                for rule, count in r["fired"][i].items():
                    fired[rule] = fired.get(rule, 0) + count
    if run != last + 1:
        raise RuntimeError(f"the shards ran {run} of the {last + 1} cases up to case {last}")
    return {"command": "proptest", "cases": run, "seed": seed, "mode": mode, "jobs": shards, "passed": first is None,
            "seconds": seconds, "cases_per_second": run / seconds if seconds > 0 else 0.0,
            "evaluations": totals["evaluations"], "errors_agreed": totals["errors_agreed"],
            "rewritten": totals["rewritten"], "fired": dict(sorted(fired.items())), "failure": first["failure"] if first else None,
            "script": first["script"] if first else None, "case": last if first else None, "shards": shards}
