#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the canonical benchmark into results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
out="${1:-results}"
./build/release/crbench report --out "$out"
