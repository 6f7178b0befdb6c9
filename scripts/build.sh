#!/usr/bin/env bash
# Configures and builds the Release preset (used by run.sh and test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh
echo "build: set-up took $(( $(date +%s) - start )) s"
start=$(date +%s)
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
echo "build: configure and build took $(( $(date +%s) - start )) s"
