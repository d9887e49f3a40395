"""Every reproducer `shapelab rules --check` prints runs with `shapelab run` and shows its class.

    [SHAPELAB_RULES_MAX_RANK=K] /usr/bin/python3 tests/driver/rules_reproducers_test.py SHAPELAB RULES_FILE...

For the shipped rules and each rule file given: each witness program is run (JSON) and must have
no syntax error; its last two lines evaluate the old program (self) and the rewritten one (new) at
the witness. valid-graph: the old one fails where the new one runs (a masked shape error).
unsound: the old one runs, and where the new one runs too its shape or rank differs, unless the
reason says the solver could not decide.
"""
import json
import os
import subprocess
import sys

shapelab, files = sys.argv[1], sys.argv[2:]
max_rank = os.environ.get("SHAPELAB_RULES_MAX_RANK", "4")
failures, checked = [], 0
for rules in [None] + files:
    cmd = [shapelab, "rules", "--check", "--json", "--max-rank", max_rank] + (["--rules", rules] if rules else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    # 1: some rule is unsound (the shipped rules transcribe PyTensor's, one of which is unsound in
    # static mode: local_elemwise_alloc); its reproducer must show it like any other.
    if out.returncode not in (0, 1):
        failures.append(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr}")
        continue
    for line in out.stdout.splitlines():
        r = json.loads(line)
        if r["class"] == "strict":
            continue
        w = r["witness"]
        checked += 1
        run = subprocess.run([shapelab, "run", "--json", "-"], input=w["program"], capture_output=True, text=True,
                             timeout=120)
        replies = [json.loads(l) for l in run.stdout.splitlines()]
        where = f"{rules or 'shipped'}: {r['rule']} ({r['class']})"
        syntax = [x for x in replies if "column" in x]
        if syntax or run.returncode == 2:
            failures.append(f"{where}: the reproducer does not run: {syntax or run.stderr}\n{w['program']}")
            continue
        evals = [x for x in replies if x.get("command") == "eval"]
        if len(evals) != 2 or [x["name"] for x in evals] != ["self", "new"]:
            failures.append(f"{where}: the reproducer does not evaluate self and new at the witness\n{w['program']}")
            continue
        old, new = evals
        if r["class"] == "valid-graph":
            if "error" not in old or "error" in new:
                failures.append(f"{where}: at the witness the old program must fail and the new one run: {old} {new}")
        else:
            if "error" in old:
                failures.append(f"{where}: at the witness the old program must run: {old}")
            elif "error" not in new and "could not be decided" not in w["reason"] and old["shape"] == new["shape"]:
                failures.append(f"{where}: at the witness both run with the same shape {old['shape']}: {w['reason']}")
for f in failures:
    print("FAIL:", f)
print(f"{checked} reproducers checked, {len(failures)} failed")
sys.exit(1 if failures or checked == 0 else 0)
