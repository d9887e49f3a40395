#!/usr/bin/python3
"""How often each rewrite rule fires on the property harness's programs (the CI seeds).

    PYTHONPATH=build/python /usr/bin/python3 scripts/rule_fires.py [CASES] [SEED] [MODE]

Case k is the program `shapelab proptest --seed SEED --max-nodes 20 [--mode MODE]` checks as
case k (seed SEED + k, 20 statements, masks and ifelse included, a cost and its gradients
appended). Each program's arrays are rewritten as the harness rewrites them (strict, exact
rules: `:optimize NAME`); a rule counts once per program where it fired on any array. Prints
one line per rule that fired: the programs it fired in, of CASES.
"""
import collections
import sys

import shapelab as sl
from shapelab import _shapelab as core

cases = int(sys.argv[1]) if len(sys.argv) > 1 else 300
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
mode = sys.argv[3] if len(sys.argv) > 3 else "numpy"
programs = collections.Counter()
for k in range(cases):
    lines = list(core._random_program(seed + k, 20, data_dependent=True, gradients=True, mode=mode))
    program = sl.Program("\n".join(lines), mode=mode)
    names = {line.split(" = ")[0] for line in lines if " = " in line and not line.startswith("param")}
    fired = set()
    for name in sorted(names):
        answer = program.optimize(name)
        if answer is not None:
            fired.update(answer.to_dict().get("fired", {}))
    programs.update(fired)
print(f"{mode} mode, {cases} programs from seed {seed}: {len(programs)} rules fired")
for rule, count in programs.most_common():
    print(f"  {rule:36} {count}")
