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
# (Into a file first: with pipefail, `| grep -q` can fail when grep exits before the writer ends.)
"$work/build/own-case-cli" list > "$work/list-cli.txt"
grep -q "ellipse-cap" "$work/list-cli.txt" ||
  { echo "FAIL: own-case-cli (crbench_add_case) does not list ellipse-cap"; exit 1; }
"$work/build/own-case-cli" run --case ellipse-cap --solver event-driven --json > "$work/run.json"
grep -q '"status": *"ok"' "$work/run.json" ||
  { echo "FAIL: own-case-cli run --case ellipse-cap is not ok:"; head -c 600 "$work/run.json"; exit 1; }
# `check` in one's own program: the out-of-tree case's self-test passes.
"$work/build/own-case-cli" check --case ellipse-cap > "$work/check.txt" ||
  { echo "FAIL: own-case-cli check --case ellipse-cap:"; cat "$work/check.txt"; exit 1; }
grep -q "^PASSED" "$work/check.txt" ||
  { echo "FAIL: own-case-cli check did not pass:"; cat "$work/check.txt"; exit 1; }
# A study run by one's own program names that program in its README (crbench has no ellipse-cap).
cat > "$work/own-study.json" <<'STUDY'
{"name": "own", "description": "own_case.sh: the ideal row of ellipse-cap.", "case": "ellipse-cap",
 "samples": 101, "observables": ["lift_off_time"],
 "models": [{"label": "classical", "solver": "event-driven", "reference": "event-driven"}]}
STUDY
"$work/build/own-case-cli" converge --study "$work/own-study.json" --out "$work/own-study" \
  --no-figures --jobs 1 > "$work/own-study.txt" ||
  { echo "FAIL: own-case-cli converge:"; cat "$work/own-study.txt"; exit 1; }
grep -q "own-case-cli converge --study $work/own-study.json" "$work/own-study/README.md" ||
  { echo "FAIL: the own program's study README does not name it:";
    grep -i "run it alone" "$work/own-study/README.md"; cat "$work/own-study.txt"; exit 1; }
# Above N = 1e5 the realization's exit nears the round-off floor of f (flagged DISCRETIZATION).
"$work/build/own-case" verify --case ellipse-cap --N-from 1e3 --N-to 1e5 --per-decade 2 --digits 5 |
  tee "$work/verify.txt"

# The installed crbench program reads its run-time files from its own share/crbench, wherever the
# prefix now is, not from the source tree it was built from: the prefix is moved, the figure of a
# small sweep is drawn by the moved copy of scripts/figures.py, and once that copy is removed the
# figure step names the moved path (the source tree's script, still present, is not used).
mv "$work/prefix" "$work/moved"
cat > "$work/tiny-sweep.json" <<'SWEEP'
{
  "name": "tiny",
  "description": "own_case.sh: 3 x 3 points of dk-plane, for the installed figures script.",
  "case": "dk-plane",
  "axes": [
    {"name": "zeta", "from": 0.5, "to": 2, "count": 3},
    {"name": "omega0", "from": 0.5, "to": 2, "count": 3}
  ],
  "model": {"alpha": 1}
}
SWEEP
env -u CRBENCH_DATA_DIR "$work/moved/bin/crbench" sweep --sweep "$work/tiny-sweep.json" \
  --out "$work/sweep-moved" --jobs 1 > "$work/sweep-moved.txt"
ls "$work/sweep-moved"/*.png > /dev/null 2>&1 ||
  { echo "FAIL: the moved install drew no figure:"; cat "$work/sweep-moved.txt"; exit 1; }
rm "$work/moved/share/crbench/scripts/figures.py"
env -u CRBENCH_DATA_DIR "$work/moved/bin/crbench" sweep --sweep "$work/tiny-sweep.json" \
  --out "$work/sweep-without-script" --jobs 1 > "$work/sweep-without-script.txt" || true
grep -q "$work/moved/share/crbench/scripts/figures.py" "$work/sweep-without-script/figures.log" ||
  { echo "FAIL: the moved install did not look for its own figures script"; exit 1; }
# CRBENCH_DATA_DIR names the folder explicitly (here the source tree).
CRBENCH_DATA_DIR="$source" "$work/moved/bin/crbench" sweep --sweep "$work/tiny-sweep.json" \
  --out "$work/sweep-data-dir" --jobs 1 > /dev/null
ls "$work/sweep-data-dir"/*.png > /dev/null 2>&1 ||
  { echo "FAIL: CRBENCH_DATA_DIR did not give the figures script"; exit 1; }
# Its plugins too: Lemke's LCP (Siconos numerics) comes from the moved lib/crbench.
LD_DEBUG=files "$work/moved/bin/crbench" run --case ball-chain --set n=20 --solver moreau-jean \
  --lcp lemke > "$work/plugin-moved.txt" 2> "$work/plugin-moved.log"
grep -q "$work/moved/lib/crbench/libcrbench_siconos_numerics.so" "$work/plugin-moved.log" ||
  { echo "FAIL: the moved install did not load its own plugin"; exit 1; }
echo "own_case: the moved install reads its own share/crbench and lib/crbench; CRBENCH_DATA_DIR overrides it"
# A case without C++ through the moved install: its generator and build settings (relative to
# lib/python3/dist-packages) compile a JSON definition against the moved headers, and the moved
# program loads the plugin.
if /usr/bin/python3 -c "import sympy" 2> /dev/null; then
  CRBENCH_CASE_CACHE="$work/case-cache" "$work/moved/bin/crbench" case build \
    "$source/examples/python/ellipse.json" --out "$work/case-plugins" > "$work/case-build.txt" ||
    { echo "FAIL: the moved install's crbench case build:"; cat "$work/case-build.txt"; exit 1; }
  "$work/moved/bin/crbench" --cases "$work/case-plugins" run --case ellipse-slide \
    --solver event-driven --json > "$work/case-run.json"
  grep -q '"status": *"ok"' "$work/case-run.json" ||
    { echo "FAIL: the moved install's case plugin did not run"; exit 1; }
  echo "own_case: the moved install builds and runs a case defined in JSON"
fi
