#!/bin/bash
# Installs the Debian packages listed in scripts/debian-packages.txt (apt-get only).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
mapfile -t PACKAGES < <(sed -e 's/#.*//' scripts/debian-packages.txt | tr ' ' '\n' | grep -v '^$')
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
