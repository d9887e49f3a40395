#!/bin/bash
# Executes the notebooks and renders them to HTML for reading (build/notebooks-html/); the
# committed notebooks stay without outputs.   bash scripts/render_notebooks.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p "$build/notebooks-html"
PYTHONPATH="$PWD/$build/python" /usr/bin/python3 -m nbconvert --to html --execute \
  --output-dir "$build/notebooks-html" notebooks/*.ipynb
echo "open $build/notebooks-html/*.html"
