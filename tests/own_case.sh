#!/usr/bin/env bash
# crbench as a package: installs this build into a temporary prefix, builds examples/own-case (a
# case of its own, outside the tree) against it with find_package(crbench), and runs `verify` on
# that case through the user's program. Exit status 0 only if every step passes.
# Usage: tests/own_case.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
[ -f "$work/prefix/lib/cmake/crbench/crbenchConfig.cmake" ] ||
  { echo "FAIL: no crbenchConfig.cmake installed"; exit 1; }
[ -f "$work/prefix/include/crbench/cases/case.hpp" ] ||
  { echo "FAIL: headers not installed under include/crbench"; exit 1; }
for data in scripts/figures.py bench/studies/dk-plane.json bench/sweeps/dk-plane-map.json \
    tests/data/siconos/BouncingBallTS.ref; do
  [ -f "$work/prefix/share/crbench/$data" ] ||
    { echo "FAIL: $data not installed under share/crbench"; exit 1; }
done
cmake -S "$source/examples/own-case" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" -j 2 > "$work/build.log" ||
  { echo "FAIL: examples/own-case did not build:"; tail -30 "$work/build.log"; exit 1; }
"$work/build/own-case" list > "$work/list.txt"
grep -q "ellipse-cap" "$work/list.txt" ||
  { echo "FAIL: own-case list does not show ellipse-cap"; exit 1; }
# The program made by crbench_add_case and crbench::main (no main of one's own) runs it too.
"$work/build/own-case-cli" list | grep -q "ellipse-cap" ||
  { echo "FAIL: own-case-cli (crbench_add_case) does not list ellipse-cap"; exit 1; }
"$work/build/own-case-cli" run --case ellipse-cap --solver event-driven --json > "$work/run.json"
grep -q '"status": *"ok"' "$work/run.json" ||
  { echo "FAIL: own-case-cli run --case ellipse-cap is not ok:"; head -c 600 "$work/run.json"; exit 1; }
# Above N = 1e5 the realization's exit nears the round-off floor of f (flagged DISCRETIZATION).
"$work/build/own-case" verify --case ellipse-cap --N-from 1e3 --N-to 1e5 --per-decade 2 --digits 5 |
  tee "$work/verify.txt"
