#!/bin/bash
# Builds shapelab with ThreadSanitizer (clang-14) into build-tsan/ and runs the property harness
# with several cases at once (proptest --jobs), where the optimized interpreter's fused loops also
# run on two or three threads: every data race between the cases' solvers, the shared interning
# tables and memos, and the loops' threads is reported.
#   bash scripts/tsan.sh [CASES]      (default 600 per mode)
# Exit 1 on a report or a failing case, 2 when the build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${1:-600}
CXX=${TSAN_CXX:-clang++-14} CC=${TSAN_CC:-clang-14} cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSHAPELAB_MIMALLOC=OFF -DSHAPELAB_BENCH=OFF -DSHAPELAB_PYTHON=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" > build-tsan.log
if ! cmake --build build-tsan -j"${JOBS:-2}" --target shapelab >> build-tsan.log 2>&1; then
  echo "the ThreadSanitizer build failed; the end of build-tsan.log:"
  tail -40 build-tsan.log
  exit 2
fi
status=0
for run in "--seed 1 --jobs 2" "--seed 2 --mode static --jobs 3"; do
  log=build-tsan/proptest.log
  # shellcheck disable=SC2086
  if ! TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" build-tsan/shapelab proptest --cases "$CASES" --max-nodes 20 $run > "$log" 2>&1 ||
     grep -q "ThreadSanitizer" "$log"; then
    echo "proptest $run: FAILED under ThreadSanitizer"
    tail -60 "$log"
    status=1
  else
    echo "proptest $run: $(tail -n 1 "$log")"
  fi
done
exit $status
