#!/bin/bash
# Golden transcripts of `shapelab run`: each tests/programs/golden/NAME.shl (and the shipped
# examples) run in text and in --json mode (and of `shapelab repl` on input made below), output and exit code compared with NAME.out and
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
# Bad input typed or pasted at the REPL (piped, as a paste arrives): binary bytes, an unterminated
# string, lines of a megabyte, brackets nested past the limit. Each gets one message and the
# session goes on (the last statements still run). Made here: a megabyte is no file to keep.
bad_repl_input() {
  printf 'param n\nx = input((n, 2), float64)\n'
  printf '\000\001\377 a binary paste\n'
  printf "s = 'never closed\n"
  printf 'w = '; yes 'x[0] +' | head -n 149796 | tr '\n' ' '; printf '1.0\n'
  printf "q = '"; head -c 1048576 /dev/zero | tr '\0' 'a'; printf '\n'
  printf 'deep = '; head -c 524288 /dev/zero | tr '\0' '('; printf 1; head -c 524288 /dev/zero | tr '\0' ')'; printf '\n'
  printf ':shape x\nafter = x * 2.0\n'
}
check_repl() { # name input-function
  local name=$1 input=$2 mode out
  for mode in text json; do
    local expected="$here/golden/$name.$([ $mode = text ] && echo out || echo jsonl)"
    out=$(if [ $mode = json ]; then $input | "$S" repl --json; else $input | "$S" repl; fi 2>&1; echo "exit $?")
    if [ "${UPDATE:-0}" = 1 ]; then
      printf '%s\n' "$out" > "$expected"
    elif ! diff -u "$expected" <(printf '%s\n' "$out") > /tmp/golden_diff.$$; then
      echo "FAIL $name ($mode):"; head -c 20000 /tmp/golden_diff.$$; fail=1
    else
      echo "ok   $name ($mode)"
    fi
  done
}
for f in "$here"/golden/*.shl; do check "$here/golden" "$(basename "$f" .shl)"; done
check_repl repl_bad_input bad_repl_input
check "$here/../../examples" broadcasting
rm -f /tmp/golden_diff.$$ "$here/golden/w.npy"
exit $fail
