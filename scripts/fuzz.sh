#!/bin/bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) into build-fuzz/ and runs each one.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# CI runs a short budget; a long campaign is e.g.  bash scripts/fuzz.sh 3600 fuzz_expr
# (or pass -runs=N through FUZZ_ARGS="-runs=10000000"). FUZZ_WORKERS=N runs N fuzzing processes
# per target that share one corpus (libFuzzer's -fork=N; one per core), for long campaigns;
# executions are then counted over all of them. FUZZ_JOBS=N instead runs N whole libFuzzer
# processes (-jobs=N -workers=N), each with the full budget (-runs, the seconds), that share the
# corpus directory and pick up each other's new inputs; unlike -fork, no process restarts and
# replays the corpus. Their logs are build-fuzz/<target>-jobs/fuzz-<k>.log, and the executions
# printed are their sum. The committed seeds in
# tests/fuzz/corpus/<name>/ are copied to $FUZZ_CORPUS/<name>/ (default build-fuzz/corpus) so
# runs never change them; a fresh FUZZ_CORPUS starts a campaign from the seeds alone.
# Prints one line per target: executions, seconds, executions per second. Exit 1 on a finding,
# 2 when the targets do not build.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(fuzz_expr fuzz_signature fuzz_shape fuzz_solver fuzz_gufunc fuzz_einsum fuzz_program)
# The coverage ignore list is a compiler flag's file, which CMake does not track: a changed list
# means a build from clean.
if [ -d build-fuzz ] && ! cmp -s tests/fuzz/coverage-ignorelist.txt build-fuzz/coverage-ignorelist.txt; then
  cmake --build build-fuzz --target clean > /dev/null 2>&1 || true
fi
CXX=${FUZZ_CXX:-clang++-14} CC=${FUZZ_CC:-clang-14} cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSHAPELAB_FUZZ=ON -DSHAPELAB_TESTS=OFF -DSHAPELAB_BENCH=OFF > build-fuzz.log
# The compiler's output goes to the log too (clang reports loops it did not vectorize in interp/);
# a failed build shows the end of it.
if ! cmake --build build-fuzz -j"${JOBS:-2}" --target "${TARGETS[@]}" >> build-fuzz.log 2>&1; then
  echo "the fuzz targets did not build; the end of build-fuzz.log:"
  tail -40 build-fuzz.log
  exit 2
fi
cp tests/fuzz/coverage-ignorelist.txt build-fuzz/coverage-ignorelist.txt
status=0
for t in "${TARGETS[@]}"; do
  name=${t#fuzz_}
  corpus="${FUZZ_CORPUS:-build-fuzz/corpus}/$name"
  mkdir -p "$corpus" "build-fuzz/findings/$name"
  cp -n tests/fuzz/corpus/"$name"/* "$corpus/" 2>/dev/null || true
  log="build-fuzz/$t.log"
  workers=()
  [ "${FUZZ_WORKERS:-1}" -gt 1 ] && workers=(-fork="$FUZZ_WORKERS")
  jobs=${FUZZ_JOBS:-1}
  jobdir="$PWD/build-fuzz/$t-jobs"
  if [ "$jobs" -gt 1 ]; then
    # libFuzzer writes each job's log as fuzz-<k>.log in the working directory.
    rm -rf "$jobdir"
    mkdir -p "$jobdir"
    workers=(-jobs="$jobs" -workers="$jobs")
  fi
  root=$PWD
  rundir=.
  [ "$jobs" -gt 1 ] && rundir=$jobdir
  if ! (cd "$rundir" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
      "$root/build-fuzz/tests/fuzz/$t" "$(realpath "$corpus")" \
      -dict="$root/tests/fuzz/$name.dict" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
      -rss_limit_mb=4096 -artifact_prefix="$root/build-fuzz/findings/$name/" -print_final_stats=1 \
      "${workers[@]}" ${FUZZ_ARGS:-}) > "$log" 2>&1 ||
     { [ "$jobs" -gt 1 ] && grep -l 'ERROR: \|SUMMARY: \|INFO: a leak' "$jobdir"/fuzz-*.log > /dev/null 2>&1; }; then
    echo "$t: FINDING (see $log${workers:+ and $jobdir/} and build-fuzz/findings/$name/)"
    tail -30 "$log"
    [ "$jobs" -gt 1 ] && tail -30 "$jobdir"/fuzz-*.log
    status=1
    continue
  fi
  if [ "$jobs" -gt 1 ]; then
    # Each job prints its own final statistics; the campaign is their sum.
    runs=0
    secs=0
    for jl in "$jobdir"/fuzz-*.log; do
      r=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$jl" | grep -o '[0-9]*$' || echo 0)
      s=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$jl" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo 0)
      runs=$(( runs + r ))
      [ "$s" -gt "$secs" ] && secs=$s
    done
    FUZZ_WORKERS=$jobs
  elif [ ${#workers[@]} -gt 0 ]; then
    # The parent's last status line counts the workers' executions: "#N: cov: ... time: Ss ...".
    runs=$(grep -o '^#[0-9]*:' "$log" | tail -1 | tr -dc '0-9')
    secs=$(grep -o 'INFO: exiting: [0-9]* time: [0-9]*s' "$log" | tail -1 | grep -o '[0-9]*s$' | tr -dc '0-9')
    runs=${runs:-0}
    secs=${secs:-0}
  else
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo 0)
  fi
  rate=$(( secs > 0 ? runs / secs : runs ))
  echo "$t: $runs executions in ${secs}s, $rate exec/s${workers:+ over ${FUZZ_WORKERS} workers}, nothing found"
done
exit $status
