#!/bin/bash
# Golden checks of the shape commands' JSON and exit codes (the CLI contract of issue 3).
set -u
fail=0
check() { # name expected-exit expected-substring command...
  local name=$1 code=$2 want=$3; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" != "$code" ]; then echo "FAIL $name: exit $rc, wanted $code: $out"; fail=1; return; fi
  if [[ "$out" != *"$want"* ]]; then echo "FAIL $name: output lacks '$want':"; echo "$out"; fail=1; return; fi
  echo "ok   $name"
}
S=$SHAPELAB
check bc-valid 0 '{"status": "valid", "checks": [], "limits": [], "message": "valid for every size allowed", "shape": [8, 7, 6, 5]}' $S broadcast '(8,1,6,1)' '(7,1,5)' --json
check bc-error 1 '"message": "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (3,) and arg 1 with shape (4,)."' $S broadcast '(3,)' '(4,)' --json
check bc-null-shape 1 '"shape": null' $S broadcast '(3,)' '(4,)' --json
check bc-runtime 0 '"status": "runtime-check", "checks": ["n == 1 or m == 1 or n == m"]' $S broadcast '(n,)' '(m,)' --json
check bc-piecewise 0 '"shape": ["n if m == 1 else m"]' $S broadcast '(n,)' '(m,)' --json
check bc-violating 0 '"violating": {' $S broadcast '(n,)' '(m,)' --json
check bc-static 0 '"checks": ["n == m"]' $S broadcast --mode static '(n,)' '(m,)' --json
check bc-assume 0 '"status": "valid"' $S broadcast --assume 'n >= 2' --assume 'n <= 1000' '(n, 3)' '(1, 3)' --json
check bc-assume-count 0 '"status": "valid", "checks": [], "limits": ["n <= 3074457345618258602"]' $S broadcast --assume 'n >= 2' '(n, 1)' '(1, 3)' --json
check bc-zero 0 '"shape": [0, 0]' $S broadcast '(1,0)' '(0,1)' --json
check bc-scalar 0 '"shape": []' $S broadcast '()' --json
check bc-overflow 1 '2**63 - 1' $S broadcast '(2**62, 4)' '(1,)' --json
check bc-syntax 2 'syntax error' $S broadcast '(3,,)' --json
check bc-mode 2 '--mode: eager not in {numpy,static}' $S broadcast --mode eager '(3,)'
check bc-inconsistent 2 'inconsistent assumptions' $S broadcast --assume 'n < 0' '(n,)'
check bt-valid 0 '"shape": [2, 3]' $S broadcast-to '(1, 3)' '(2, 3)' --json
check bt-error 1 'operands could not be broadcast together with remapped shapes [original->remapped]: (3,)  and requested shape (1,)' $S broadcast-to '(3,)' '(1,)' --json
check bt-symbolic 0 '"checks": ["n == 1 or n == k"], "limits": ["k*m <= 9223372036854775807"], "violating": {"k": 1, "m": 0, "n": 0}' $S broadcast-to '(n,)' '(m, k)' --json
check gu-valid 0 '"batch_shape": ["b"], "core_dims": {"m": "m", "n": "n", "p": "p"}, "out_shapes": [["b", "m", "p"]], "undetermined": []' $S gufunc '(m,n),(n,p)->(m,p)' '(b,m,n)' '(n,p)' --json
check gu-mismatch 1 'Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (i),(i)->() (size 4 is different from 3)' $S gufunc '(i),(i)->()' '(3,)' '(4,)' --json
check gu-undetermined 0 '"out_shapes": [[null]], "undetermined": ["p"]' $S gufunc '(n,d)->(p)' '(5,3)' --json
check gu-shape-only 0 '"out_shapes": [[5, 4]]' $S gufunc '(m),<n>->(m,n)' '(5,)' '<4>' --json
check gu-solve 0 '"core_dims": {"n": "d - 1"}' $S gufunc '(n+1)->(n)' '(d,)' --json
check gu-parse 2 'expect dimension name or non-zero frozen size at position 1 in "((i)),(i)->()"' $S gufunc '((i)),(i)->()' '(3,)' '(3,)'
check gu-solved-never 1 "Input operand 0 has a mismatch in its core dimension '2*n', with gufunc signature (2*n)->() (no size n makes 2*n equal to 7), for every size allowed" $S gufunc '(2*n)->()' '(7,)'
check gu-args 2 'takes 2 input(s), but 1 were given' $S gufunc '(i),(i)->()' '(3,)'
check gu-rank 1 'Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (i),(i)->() requires 1)' $S gufunc '(i),(i)->()' '()' '(3,)' --json
check rv-normal 0 '"shape": [3, 4], "batch_shape": [3, 4], "signature": "(),()->()"' $S rv normal '(3,1)' '(4,)' --json
check rv-mvn 0 '"shape": [2, 5, "n"]' $S rv multivariate_normal --size '(2,5)' '(5,n)' '(n,n)' --json
check rv-size-empty 1 'Size length is incompatible' $S rv normal '(3,)' '()' --size '()' --json
# Trailing parameters left out take their defaults (scalars): normal's loc=0.0 and scale=1.0.
check rv-defaults 0 '"shape": [3], "batch_shape": [3], "signature": "(),()->()"' $S rv normal --size '(3,)' --json
check rv-defaults-batch 0 '"shape": [4, 2], "batch_shape": [4, 2]' $S rv normal '(4,2)' --json
check rv-required 2 'gamma takes 2 parameter(s) (shape, scale), got 0' $S rv gamma --size '(3,)'
check rv-list-defaults 0 '"defaults": {"loc": 0.0, "scale": 1.0}' $S rv --list --json
check rv-value 0 '"shape": [5], "batch_shape": [], "signature": "<x>->(x)", "allocatable": true' $S rv permutation '<5>' --json
check rv-needs-value 0 '"allocatable": false, "core_shape": "needs-value"' $S rv permutation '()' --json
check rv-unknown 2 "unknown random variable 'foo'" $S rv foo '()' --json
check rv-list 0 'multivariate_normal' $S rv --list
check rv-list-extra 2 '--list excludes NAME' $S rv --list normal
check rv-missing-name 2 'NAME is required' $S rv
# Regressions of issue 9 (wrong answers found by differential testing), one per case.
check i9-guard-in-product 0 '"checks": ["n == 1 or n*(n // 2) >= 1 and n*(n // 2) <= 2 and n % 2 == 0"' $S broadcast '((1 if n == 1 else n*(n/2)),)' '(2,)' --json
check i9-core-size 0 '"checks": ["n >= 1"]' $S gufunc '(i)->(i)' '(n - 1,)' --json
check i9-core-defined 0 '"checks": ["n % 2 == 0"]' $S gufunc '(i)->(i)' '(n/2,)' --json
check i9-capture 0 '"core_dims": {"m": "n", "n": "-n + 5"}' $S gufunc '(m),(n+m)->(n)' '(n,)' '(5,)' --json
# Found by fuzz_shape: an operand too large to exist is an error even where the result is empty.
check i9-operand-too-large 1 'arg 1 has 13163833896632007127 elements, more than 2**63 - 1' $S broadcast '(F8, 1)' '(7, 1, 1111**6)' --json
check i9-operand-count-check 0 '"checks": [], "limits": ["n <= 1"]' $S broadcast '(n, 1, 2**62)' '(0, 1)' --json
check i9-gufunc-operand-too-large 1 'input operand 0 has 39491501689896021381 elements' $S gufunc '(i),(i)->()' '(7, 1, 1111**6, 3)' '(F8, 1, 3)' --json
# An array exists where its sizes other than 0 multiply to at most 2**63 - 1: NumPy refuses
# np.empty((0, 7, 1111**6), np.int8) and the empty result of (0, 7, 1) + (1, 1, 1111**6).
check i9-empty-operand-too-big 1 'arg 0 with shape (0, 7, 1880547699518858161) is too big to exist' $S broadcast '(0, 7, 1111**6)' --json
check i9-empty-result-too-big 1 'broadcast dimensions too large: the result shape (0, 7, 1880547699518858161) is too big to exist' $S broadcast '(0, 7, 1)' '(1, 1, 1111**6)' --json
check i9-empty-symbolic-too-big 1 'arg 0 is too big to exist: its sizes other than 0 multiply to at least 13163833896632007127' $S broadcast '(n, 7, 1111**6)' --json
check i9-empty-check 0 '"checks": [], "limits": ["7*max(1, m)*max(1, n) <= 9223372036854775807"]' $S broadcast '(n, 1, m)' '(7, 1)' --json
check i9-empty-two-parameters 0 '"checks": [], "limits": ["m*n <= 9223372036854775807"]' $S broadcast '(0, n, 1)' '(m,)' --json
# A result that is an operand's shape is as large as an array given: no limit to report.
check result-is-an-operand 0 '"checks": [], "limits": []' $S broadcast '(n, 7, m)' '(1,)' --json
check i9-gufunc-unused-core-too-big 1 'input operand 0 has 1208925819614629174706176 elements' $S gufunc '(i)->()' '(2**40, 2**40)' --json
check i9-rv-empty-draw-too-big 1 'the draw is too big to exist' $S rv normal '()' '()' --size '(0, 2**40, 2**40)' --json
check i9-broadcast-to-empty-too-big 1 'is too big to exist' $S broadcast-to '(1,)' '(0, 2**40, 2**40)' --json
# --time-limit bounds a command's questions together (found by fuzz_shape: this broadcast asks
# several questions that each ran to the limit, 1.2 s in all at the default 1 s). With 300 ms it
# answers unknown well within 1 s (the bound allows for a loaded machine).
slow=('(min(eruen--w//3/6,-min(s*amJ,Falif1s*ammv,Fas*amalif,JJJJ)/3, m),)' '(m4,)')
start=$(date +%s%N)
check i9-total-time-limit 0 '"status": "unknown"' $S broadcast --time-limit 300 "${slow[@]}" --json
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
# Issue 65: limits apart, small witnesses, shapes simplified under their validity.
check i65-simplified 0 '"checks": ["n == 8 or n == 6"], "limits": [], "violating": {"n": 0}, "message": "valid only where the runtime checks hold", "shape": [3]' $S broadcast '(n - 5,)' '(3,)' --json
check i65-static-order 0 '"checks": ["x1 == 3", "y2 == 2"], "limits": [], "violating": {"x1": 0, "y2": 0}, "message": "valid only where the runtime checks hold", "shape": [3, 2]' $S broadcast --mode static '(x1, 2)' '(3, y2)' --json
check i65-static-order-swapped 0 '"shape": [3, 2]' $S broadcast --mode static '(3, y2)' '(x1, 2)' --json
check i65-strict 0 '"status": "runtime-check", "checks": ["m*n <= 9223372036854775807"], "limits": []' $S broadcast '(n,1)' '(1,m)' --json --strict-limits
check i65-limit-never 1 '"status": "error"' $S broadcast --assume 'n == 2' '(n, 2**62)' --json
check i65-limits-line 0 'limits: m*n <= 9223372036854775807' $S broadcast '(n,1)' '(1,m)'
check i65-small-witness 0 '"violating": {"m": 2, "n": 0}' $S broadcast '(n,)' '(m,)' --json
check i65-rank 1 'maximum supported dimension for an ndarray is 32, found 40' $S broadcast "($(printf '1,%.0s' $(seq 40)))" --json

if [ "$elapsed_ms" -ge 1000 ]; then echo "FAIL i9-total-time-limit-elapsed: ${elapsed_ms} ms"; fail=1; else echo "ok   i9-total-time-limit-elapsed (${elapsed_ms} ms)"; fi
check i9-capture-checks 0 '"checks": ["n <= 5"]' $S gufunc '(m),(n+m)->(n)' '(n,)' '(5,)' --json
check i9-static-fixed 0 '"status": "valid", "checks": [], "limits": [], "message": "valid for every size allowed", "shape": [0]' $S broadcast --mode static --assume 'n == 1' '(0,)' '(n**2,)' --json
check i9-count-affine 1 '"violating": {"n": 2}' $S broadcast --assume 'n == 2' '(n, 2**62)' --json
check i9-dim-limit 1 'Maximum allowed dimension exceeded' $S broadcast '(n,)' '(2**63,)' --json
check i9-rv-count 1 'more than 2**63 - 1' $S rv normal '()' '()' --size '(2**40, 2**40)' --json
check i9-gufunc-count 1 'more than 2**63 - 1' $S gufunc '(i)->(i)' '(2**40, 2**40)' --json
check i9-rv-value 1 'Maximum allowed dimension exceeded' $S rv permutation '<2**100>' --json
check i9-product-count 0 '"checks": [], "limits": ["m*n <= 9223372036854775807"]' $S broadcast '(n,1)' '(1,m)' --json
check i9-reserved-sig 2 "name '_x' is reserved" $S gufunc '(_x)->(_x+1)' '(3,)'
check i9-numpy-underscore 0 '"status": "valid"' $S gufunc '(_i)->()' '(3,)' --json

check help 0 'broadcast-to' $S --help
for c in broadcast broadcast-to gufunc rv; do check help-$c 0 "Usage: shapelab $c" $S $c --help; done
exit $fail
