#!/bin/bash
# A short tour of shapelab's answers. Run after building (scripts/setup.sh does both).
set -euo pipefail
cd "$(dirname "$0")/.."
S=build/shapelab
run() { echo "\$ shapelab $*"; "$S" "$@" || echo "(exit $?)"; echo; }
run decide --assume 'n >= 1' 'n != 0'
run decide --assume 'n >= 1' 'n % 2 == 0 or n == m'
run decide --assume 'n >= 2' --assume 'n <= 3' 'n == 1' --json
run decide '(n*(n-1))/2 == k' --json
run decide --assume 'n >= 2**70' 'n == 2**70 + 5' --json
run broadcast '(8,1,6,1)' '(7,1,5)' --json
run broadcast '(n,)' '(m,)'
run broadcast --mode static '(n, 3)' '(m, 3)' --json
run gufunc '(m,n),(n,p)->(m,p)' '(b,m,n)' '(n,p)' --json
run gufunc '(n,d)->(n*(n-1)//2)' '(n, 3)' --json
run rv multivariate_normal --size '(2,5)' '(5,n)' '(n,n)' --json
run rv permutation '()'
run run examples/broadcasting.shl
echo "\$ PYTHONPATH=build/python /usr/bin/python3    # the same answers from Python"
PYTHONPATH=build/python /usr/bin/python3 - <<'PY'
import shapelab as sl
print(">>> sl.broadcast_shapes((3, 1), (4,))")
print(sl.broadcast_shapes((3, 1), (4,)))
print('>>> sl.gufunc("(m,n),(n,p)->(m,p)", "(b,m,n)", (4, 5))')
print(sl.gufunc("(m,n),(n,p)->(m,p)", "(b,m,n)", (4, 5)))
PY
