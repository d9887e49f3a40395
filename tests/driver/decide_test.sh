#!/bin/bash
# Golden checks of `shapelab decide`: output, JSON keys and exit codes (the CLI contract).
set -u
fail=0
check() { # name expected-exit expected-stdout-substring command...
  local name=$1 code=$2 want=$3; shift 3
  local out rc
  out=$("$@" 2>/tmp/decide_err.$$); rc=$?
  if [ "$rc" != "$code" ]; then echo "FAIL $name: exit $rc, wanted $code"; cat /tmp/decide_err.$$; fail=1; return; fi
  if [[ "$out$(cat /tmp/decide_err.$$)" != *"$want"* ]]; then echo "FAIL $name: output lacks '$want':"; echo "$out"; cat /tmp/decide_err.$$; fail=1; return; fi
  echo "ok   $name"
}
S=$SHAPELAB
check proven 0 '{"answer": "proven"}' $S decide --assume 'n >= 1' 'n != 0' --json
check refuted 0 '{"answer": "refuted", "violating": {"n": 2}}' $S decide --assume 'n >= 2' --assume 'n <= 2' 'n == 1' --json
check depends 0 '"condition": "n == 2*m"' $S decide --assume 'n >= 1' 'n == 2*m' --json
check depends-sat 0 '"satisfying": {' $S decide 'n == 2*m' --json
check big 0 '"satisfying": {"n": "1180591620717411303429"}' $S decide --assume 'n >= 2**70' 'n == 2**70 + 5' --json
check human 0 'holds when: n == 2*m' $S decide 'n == 2*m'
check syntax 2 '^' $S decide 'n + * 2'
check syntax-msg 2 "expected an expression, found '*' at column 5" $S decide 'n + * 2' --json
check reserved 2 'reserved' $S decide '_x > 1'
# With --json, bad input is also a JSON object on stdout (the text stays on stderr).
check json-error 2 '{"command": "decide", "error": "expected an expression, found '"'"'*'"'"' at column 5' $S decide 'n + * 2' --json
check json-error-kind 2 '"kind": "inconsistent assumptions"' $S decide --assume 'n < 0' 'n > 1' --json
check json-run-unreadable 2 '{"command": "run", "error": "cannot read '"'"'/nonexistent/x.shl'"'"'", "kind": "input"}' $S run --json /nonexistent/x.shl
check inconsistent 2 'inconsistent assumptions' $S decide --assume 'n < 0' 'n > 1'
check usage 2 'PREDICATE is required' $S decide
check unknown-option 2 'argument was not expected: --frobnicate' $S decide --frobnicate 'n > 1'
check help 0 'Usage: shapelab decide' $S decide --help
check top-help 0 'decide' $S --help
# Regressions of issue 9.
check i9-readback 0 '"condition": "n == 1 or n*(n // 2) >= 1 and n % 2 == 0"' $S decide '(1 if n == 1 else n*(n/2)) >= 1' --json
check i9-product-context 0 '"satisfying": {"m": 1000003, "n": 1}' $S decide --assume 'n*m == 1000003' 'n == 1' --json
check i9-complete-witness 0 '"violating": {"m": 0, "n": 0}' $S decide --assume 'm >= 0' 'n >= 1' --json
check i9-short-option 2 'argument was not expected: -x' $S decide -x 'n > 1'
check i9-negative-predicate 0 'depends' $S decide '-n + 5 >= 0'
check i9-control-bytes 2 "unexpected character '\\x01'" $S decide $'n >\x01 1'
# The power is at least 1 wherever the sizes are >= 0: refuted (by intervals on its negation, as
# no small point satisfies it), where isl, which sees the product's monomials as opaque, answered
# unknown. Either way it answers at once.
check i9-products-bounded 0 '"answer": "refuted", "violating": {"a": 0, "b": 0, "c": 0, "d": 0}' $S decide '(a + b + c + d + 1)**8 == 0' --json
# The chain of exact divisions is 0 where x is even and undefined elsewhere: answered at once
# (its definedness no longer nests the partial terms it guards).
check i9-chain-answered 0 'holds when: x % 2 == 0' $S decide "x$(for k in $(seq 1 40); do printf '/2*0/2*a%d' $k; done) == 0"
check i9-product-too-large 2 'expression too large: product has more than 4096 terms at column 14' $S decide '(a+b+c+d+e+f)**12 == 0'
check i9-time-limit 0 '"answer": "unknown"' $S decide "$(for k in $(seq 1 50); do printf 'n%d == %d or ' $k $k; done)False" --json
check i9-time-limit-option 0 'time limit (5 ms for all the questions together)' $S decide --time-limit 5 "$(for k in $(seq 1 50); do printf 'n%d == %d or ' $k $k; done)False" --json
# Command lines are parsed by CLI11 (issue 8): --version, a missing option value and a bad
# number are reported by the library on one line, exit 2.
check version 0 'shapelab 0.1.0' $S --version
check missing-value 2 '--assume: 1 required' $S decide 'n > 1' --assume
check bad-limit 2 'Could not convert: --time-limit' $S decide --time-limit soon 'n > 1'
check negative-limit 2 '--time-limit' $S decide --time-limit -5 'n > 1'
check negative-memory 2 '--memory-limit' $S decide --memory-limit=-1 'n > 1'
check unknown-command 2 "unknown command 'frob'" $S frob
check negative-assumption 0 '"condition": "n <= 5"' $S decide --assume '-n + 7 >= 0' 'n <= 5' --json
for args in "decide --frobnicate n>1" "decide" "frob" "rv --list normal"; do
  lines=$($S $args 2>&1 >/dev/null | wc -l)
  if [ "$lines" != 1 ]; then echo "FAIL one-line '$args': $lines lines on stderr"; fail=1; else echo "ok   one-line '$args'"; fi
done
rm -f /tmp/decide_err.$$
exit $fail
