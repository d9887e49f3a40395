#!/bin/bash
# Installs every dependency (Debian packages only), builds shapelab, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
  cmake make g++ pkg-config libisl-dev libgmp-dev libboost-dev librapidcheck-dev \
  libgtest-dev libbenchmark-dev python3 python3-numpy
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
bash scripts/demo.sh
