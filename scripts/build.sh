#!/usr/bin/env bash
# Configures and builds the Release preset (used by run.sh and test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
