#!/bin/bash
# Builds (if needed) and runs the whole test suite. BUILD_DIR and CMAKE_ARGS may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j"${JOBS:-2}"
cd "$BUILD_DIR"
ctest --output-on-failure -j"${JOBS:-2}"
