#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the canonical benchmark into results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# OpenBLAS (under Siconos's solvers) picks its kernels by the CPU, and their rounding moves the
# step counts of an event-driven run through several contacts: the generic x86-64 kernels make
# results/ the same on every machine (results/README.md says which were used).
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-Prescott}"
out="${1:-results}"
./build/release/crbench report --out "$out"
