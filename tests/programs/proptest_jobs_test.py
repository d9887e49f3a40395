"""`shapelab proptest --jobs N` checks the same cases as one thread: the same counts of
evaluations compared, errors agreed and outputs rewritten (each case depends on its seed only),
in both modes, and --jobs 0 takes one thread per core. Usage: proptest_jobs_test.py PATH/TO/shapelab"""
import json
import subprocess
import sys

shapelab = sys.argv[1]
SAME = ("cases", "seed", "mode", "passed", "evaluations", "errors_agreed", "rewritten", "failure", "script")


def run(*args):
    out = subprocess.run([shapelab, "proptest", "--json", *args], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("FAIL: proptest %s exited %d:\n%s%s" % (" ".join(args), out.returncode, out.stdout, out.stderr))
    return json.loads(out.stdout)


for mode in ("numpy", "static"):
    common = ["--cases", "150", "--seed", "11", "--max-nodes", "12", "--mode", mode]
    one = run(*common, "--jobs", "1")
    if one["jobs"] != 1 or one["cases"] != 150 or one["evaluations"] == 0:
        raise SystemExit("FAIL: one thread ran %r" % one)
    for jobs in ("3", "0"):
        many = run(*common, "--jobs", jobs)
        if jobs == "3" and many["jobs"] != 3:
            raise SystemExit("FAIL: --jobs 3 ran on %r threads" % many["jobs"])
        if many["jobs"] < 1:
            raise SystemExit("FAIL: --jobs 0 ran on %r threads" % many["jobs"])
        for key in SAME:
            if one[key] != many[key]:
                raise SystemExit("FAIL: %s with --jobs %s: %r, with one thread %r" % (key, jobs, many[key], one[key]))
# More threads than cases: one per case.
few = run("--cases", "2", "--seed", "5", "--jobs", "8")
if few["jobs"] != 2 or few["cases"] != 2:
    raise SystemExit("FAIL: 2 cases on --jobs 8 ran %r" % few)
print("ok: --jobs 1, 3 and 0 checked the same cases in both modes")
