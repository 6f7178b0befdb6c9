#!/usr/bin/env bash
# Every figure type scripts/figures.py draws, rendered from small studies, small sweeps (two and
# three axes), a small impact study and a chain outcome: each PNG and PDF must exist and hold more than a blank canvas (a PNG of at least
# 20 kB at 200 dpi, a PDF of at least 5 kB).
# Usage: tests/figures.sh CRBENCH SOURCE_DIR WORK_DIR
set -euo pipefail
crbench=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
# converge exits 1 when a model is NOT CONFIRMED (its tables and figures are written all the same).
"$crbench" converge --study "$source/tests/data/studies/small.json" --out "$work/small" --jobs 2 \
  > /dev/null || [ $? -eq 1 ]
"$crbench" converge --study "$source/tests/data/studies/figures.json" --out "$work/figures" \
  --jobs 2 > /dev/null || [ $? -eq 1 ]
# A coarse phase map with realization checks: the sweep of the MPI tests on a 6 x 6 grid.
sed -e 's/"count": 40/"count": 6/g' -e 's/"N": 1e8/"N": 1e6/' \
  "$source/tests/data/sweeps/mpi.json" > "$work/sweep.json"
"$crbench" sweep --sweep "$work/sweep.json" --out "$work/sweep" --jobs 2 > /dev/null
# A three-axis sweep (a map per slice of the last axis): zeta x omega0 x alpha, 8 x 8 x 7 (six
# slices drawn), with checks.
cat > "$work/cube.json" <<'JSON'
{"name": "cube", "case": "dk-plane",
 "axes": [{"name": "zeta", "from": 0.05, "to": 20, "count": 8, "spacing": "log"},
          {"name": "omega0", "from": 0.1, "to": 20, "count": 8, "spacing": "log"},
          {"name": "alpha", "from": 0.1, "to": 10, "count": 7, "spacing": "log"}],
 "check": {"N": 1e6, "stride": 6}}
JSON
"$crbench" sweep --sweep "$work/cube.json" --out "$work/cube" --jobs 2 > /dev/null
# An impact study of crbench's moreau-jean alone (the engines are optional): two rows, two speeds,
# two steps.
cat > "$work/impacts.json" <<'JSON'
{"name": "impacts", "case": "bouncing-ball-siconos", "params": {"h0": 0}, "speed": "v0",
 "speeds": [0.5, 2], "steps": [1e-3, 1e-2], "t_end": 0.3,
 "rows": [{"label": "e0", "solver": "moreau-jean", "set": {"restitution": 0},
           "restitution": 0, "restitution_source": "Newton's law"},
          {"label": "e0.5", "solver": "moreau-jean", "set": {"restitution": 0.5},
           "restitution": 0.5, "restitution_source": "Newton's law"}]}
JSON
"$crbench" impacts --file "$work/impacts.json" --out "$work/impacts" --jobs 2 > /dev/null
# The report's chain outcome, from a copy of two of its chains (n = 3 and 5) and some of its
# stiffness ratios.
mkdir -p "$work/chain"
cp "$source/tests/data/chain-outcome/chain_outcome.json" "$work/chain/"
/usr/bin/python3 "$source/scripts/figures.py" "$work/chain"
failed=0
check() {
  local file=$1 least=$2
  if [ ! -f "$file" ]; then
    echo "FAIL: $file missing"
    failed=1
  elif [ "$(stat -c %s "$file")" -lt "$least" ]; then
    echo "FAIL: $file has only $(stat -c %s "$file") bytes"
    failed=1
  fi
}
for name in small/error_vs_N small/lift_off_vs_N small/collapse small/near_lift_off \
  small/work_precision figures/paths figures/max_q_deviation_vs_N figures/error_vs_alpha \
  sweep/phase_map cube/phase_map impacts/impacts chain/chain_outcome chain/chain_ratios; do
  check "$work/$name.png" 20000
  check "$work/$name.pdf" 5000
done
# 200 dpi: the PNG's pixel width is at least 1000 (a 7-inch figure gives 1400).
width=$(od -An -t u1 -j 16 -N 4 "$work/small/error_vs_N.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
[ "$width" -ge 1000 ] || { echo "FAIL: error_vs_N.png is $width pixels wide"; failed=1; }
# An axis names its unit only where the panel's models share it (a model of another case carries
# its own units in study.json).
/usr/bin/python3 - "$source/scripts" <<'PY' || failed=1
import sys
sys.path.insert(0, sys.argv[1])
from figures import unit_label
study = {"observable_units": {"max_q_deviation": "length"}}
plane, circle = {}, {"observable_units": {"max_q_deviation": "length; angle (rad)"}}
assert unit_label(study, [plane], "max_q_deviation") == " [length]"
assert unit_label(study, [circle], "max_q_deviation") == " [length; angle (rad)]"
assert "unit column" in unit_label(study, [plane, circle], "max_q_deviation")
assert unit_label(study, [plane], "energy_drift") == ""
PY
# Many h ladders whose labels read "group: name" (the engine-friction study) are drawn a row of
# panels per group; other labels keep one panel per observable.
mkdir -p "$work/grouped"
/usr/bin/python3 - "$source/scripts" "$work/grouped" <<'PY' || failed=1
import sys
sys.path.insert(0, sys.argv[1])
from figures import error_vs_step, label_groups
rows = [{"h": h, "error": 0.1 * h * (k + 1), "flagged": False} for k, h in
        enumerate([1e-2, 1e-3, 1e-4])]
fit = {"expected_order": 1, "fitted_order": 1.0}
models = [{"label": "%s: %s" % (g, s), "axis": "h",
           "observables": {"max_q_deviation": {"rows": rows, "fit": fit}}}
          for g in ("at rest", "sliding", "launched") for s in ("ode", "bullet", "mujoco")]
assert label_groups(models) == ["at rest", "sliding", "launched"]
assert label_groups(models[:3]) is None and label_groups([{"label": "plain"}] + models) is None
error_vs_step({"study": "grouped", "observables": ["max_q_deviation"], "models": models,
               "observable_units": {"max_q_deviation": "length"}}, sys.argv[2], "h")
PY
check "$work/grouped/error_vs_h.png" 20000
check "$work/grouped/error_vs_h.pdf" 5000
[ "$failed" -eq 0 ] && echo "figures: every type rendered"
exit "$failed"
