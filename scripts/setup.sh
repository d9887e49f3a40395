#!/bin/bash
# Installs every dependency (Debian packages only), builds shapelab, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
bash scripts/demo.sh
