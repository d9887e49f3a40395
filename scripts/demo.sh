#!/bin/bash
# A short tour of shapelab's answers. Run after building (scripts/setup.sh does both).
set -euo pipefail
cd "$(dirname "$0")/.."
S=build/shapelab
run() { echo "\$ shapelab $*"; "$S" "$@"; echo; }
run decide --assume 'n >= 1' 'n != 0'
run decide --assume 'n >= 1' 'n % 2 == 0 or n == m'
run decide --assume 'n >= 2' --assume 'n <= 3' 'n == 1' --json
run decide '(n*(n-1))/2 == k' --json
run decide --assume 'n >= 2**70' 'n == 2**70 + 5' --json
