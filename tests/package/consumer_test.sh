#!/bin/bash
# Installs shapelab from the build tree into a temporary prefix, then configures, builds and
# runs examples/consumer against the installed package only (no source tree, no isl flags).
# Env: BUILD_DIR (the build tree), SOURCE_DIR, CONSUMER_FLAGS (sanitizer flags of the build).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$BUILD_DIR" --prefix "$tmp/prefix" > "$tmp/install.log"
# Internal headers stay out; public ones are in.
test -f "$tmp/prefix/include/shapelab/symbolic/Solver.h"
test -f "$tmp/prefix/include/shapelab/shape/Broadcast.h"
test ! -e "$tmp/prefix/include/shapelab/symbolic/IntegerGmp.h"
test ! -e "$tmp/prefix/include/shapelab/symbolic/Watchdog.h"
test -f "$tmp/prefix/lib/cmake/shapelab/shapelabConfig.cmake" || test -f "$tmp/prefix/lib/x86_64-linux-gnu/cmake/shapelab/shapelabConfig.cmake"
cmake -S "$SOURCE_DIR/examples/consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_FLAGS="${CONSUMER_FLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${CONSUMER_FLAGS:-}" > "$tmp/configure.log"
cmake --build "$tmp/build" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
out=$("$tmp/build/consumer")
expected=$'status: runtime-check\nshape: (3, m)\ncheck: n == 3'
if [ "$out" != "$expected" ]; then
  echo "consumer printed:"; echo "$out"; echo "expected:"; echo "$expected"; exit 1
fi
# The Python package, where the build made it, imports from the prefix.
pkg="$tmp/prefix/lib/python3/dist-packages"
if [ -f "$BUILD_DIR/python/shapelab/__init__.py" ]; then
  test -f "$pkg/shapelab/__init__.py"
  PYTHONPATH="$pkg" /usr/bin/python3 -c 'import shapelab, sys; assert shapelab.broadcast_shapes((3, 1), (4,)) == (3, 4); assert shapelab.__file__.startswith(sys.argv[1])' "$pkg"
fi
# The same consumer with shapelab as a subdirectory of its build (add_subdirectory; FetchContent
# does the same), building only what the consumer needs.
cmake -S "$SOURCE_DIR/examples/consumer" -B "$tmp/sub" -DSHAPELAB_SOURCE_DIR="$SOURCE_DIR" \
  -DCMAKE_CXX_FLAGS="${CONSUMER_FLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${CONSUMER_FLAGS:-}" > "$tmp/sub-configure.log"
cmake --build "$tmp/sub" --target consumer -j"${JOBS:-2}" > "$tmp/sub-build.log" || { tail -30 "$tmp/sub-build.log"; exit 1; }
out=$("$tmp/sub/consumer")
if [ "$out" != "$expected" ]; then
  echo "consumer (add_subdirectory) printed:"; echo "$out"; exit 1
fi
# A version the package does not satisfy is refused.
mkdir -p "$tmp/old"
cat > "$tmp/old/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(wants_newer LANGUAGES CXX)
find_package(shapelab 9.0 REQUIRED)
CMAKE
if cmake -S "$tmp/old" -B "$tmp/old/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/old.log" 2>&1; then
  echo "find_package(shapelab 9.0) should fail"; exit 1
fi
echo "consumer built and ran against the installed package"
