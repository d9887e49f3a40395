#!/bin/bash
# Each rule file under fixtures/ says on its first line what `shapelab rules --rules FILE`
# answers: `# expect: ok` (it loads, and `--check` classifies every rule) or `# expect: MESSAGE`
# (the exact error, with file, line and column). SHAPELAB names the executable.
set -u
cd "$(dirname "$0")/fixtures"
fail=0
for f in *.rules; do
  expect=$(head -1 "$f" | sed 's/^# expect: //')
  if [ "$expect" = ok ]; then
    if ! out=$("$SHAPELAB" rules --check --rules "$f" 2>&1); then echo "FAIL $f: $out"; fail=1; continue; fi
    n=$(grep -c '^rule ' "$f"); got=$(grep -c '^    strict\|^    valid-graph' <<<"$out")
    [ "$n" = "$got" ] || { echo "FAIL $f: $got of $n rules classified: $out"; fail=1; }
  else
    out=$("$SHAPELAB" rules --rules "$f" 2>&1); rc=$?
    [ $rc -ne 0 ] || { echo "FAIL $f: loaded"; fail=1; continue; }
    [ "$out" = "shapelab rules: error: $expect" ] || { echo "FAIL $f:"; echo "  got:      $out"; echo "  expected: shapelab rules: error: $expect"; fail=1; }
  fi
done
[ $fail = 0 ] && echo "all rule fixtures answer as they say"
exit $fail
