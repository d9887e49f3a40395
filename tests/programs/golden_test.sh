#!/bin/bash
# Golden transcripts of `shapelab run`: each tests/programs/golden/NAME.shl (and the shipped
# examples) run in text and in --json mode, output and exit code compared with NAME.out and
# NAME.jsonl. UPDATE=1 rewrites the expected files (review the diff before committing).
set -u
here=$(cd "$(dirname "$0")" && pwd)
S=$(realpath "${SHAPELAB:?set SHAPELAB to the shapelab binary}")
fail=0
check() { # dir name
  local dir=$1 name=$2 mode out
  for mode in text json; do
    local expected="$here/golden/$name.$([ $mode = text ] && echo out || echo jsonl)"
    out=$(cd "$dir" && if [ $mode = json ]; then "$S" run --json "$name.shl"; else "$S" run "$name.shl"; fi 2>&1; echo "exit $?")
    if [ "${UPDATE:-0}" = 1 ]; then
      printf '%s\n' "$out" > "$expected"
    elif ! diff -u "$expected" <(printf '%s\n' "$out") > /tmp/golden_diff.$$; then
      echo "FAIL $name ($mode):"; cat /tmp/golden_diff.$$; fail=1
    else
      echo "ok   $name ($mode)"
    fi
  done
}
for f in "$here"/golden/*.shl; do check "$here/golden" "$(basename "$f" .shl)"; done
check "$here/../../examples" broadcasting
rm -f /tmp/golden_diff.$$ "$here/golden/w.npy"
exit $fail
