#!/usr/bin/env bash
# crbench beside the Siconos kernel on the same cases, tolerances and steps: runs the Siconos
# benchmarks of crbench_perf (bench/perf/perf_siconos.cpp) pinned to one core with the kernel's
# OpenBLAS on one thread, and writes their medians and the ratios crbench / Siconos to
# results/benchmarks/siconos.md (and prints it). Wall times on a shared machine vary from run to
# run; the steps and right-hand-side evaluations do not.
#
# Usage: bash scripts/siconos_benchmarks.sh [REPETITIONS] [CORE]
#   default: 3 repetitions (medians), core 0
source "$(dirname "$0")/benchmark_common.sh"
# The kernel's OpenBLAS on one thread (its threaded LU spins on a loaded machine).
export OPENBLAS_NUM_THREADS=1
run_family Siconos siconos_benchmarks Siconos
/usr/bin/python3 - "$work/perf.json" "$repetitions" "${pin[*]:-unpinned}" > results/benchmarks/siconos.md <<'PY'
import json, re, sys

data = json.load(open(sys.argv[1]))
repetitions, pinning = sys.argv[2], sys.argv[3]
medians = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    # BM_Siconos<What>/<crbench|siconos>[/<arg>]_median
    m = re.match(r"BM_Siconos(\w+?)/(crbench|siconos)(?:/(\d+))?_median$", b["name"])
    if not m:
        continue
    what, code, arg = m.group(1), m.group(2), m.group(3) or ""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    medians.setdefault((what, arg), {})[code] = {
        "seconds": b["real_time"] * scale,
        "steps": b.get("steps"),
        "rhs": b.get("rhs_evaluations"),
    }
labels = {
    "EventDrivenDkPlane": "event-driven lift-off solve, dk-plane, rtol 1e-12",
    "EventDrivenParticleOnCircle": "event-driven, particle-on-circle, rtol 1e-12",
    "MoreauJeanDkPlane": "Moreau–Jean, dk-plane, h = 1e-{}",
    "MoreauJeanBouncingBall": "Moreau–Jean, BouncingBallTS (h 0.005, e 0.9)",
    "MoreauJeanBallChain": "Moreau–Jean, ball-chain n = {} (h 1e-3, [0, 2])",
}
def seconds(s):
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"
def count(x):
    return "-" if x is None else f"{x:.0f}"
ctx = data.get("context", {})
print("# crbench beside the Siconos kernel\n")
print(f"Google Benchmark medians of {repetitions} repetitions, `{pinning}`, OPENBLAS_NUM_THREADS=1, "
      f"on {ctx.get('host_name', '?')} ({ctx.get('num_cpus', '?')} CPUs at "
      f"{ctx.get('mhz_per_cpu', '?')} MHz), {ctx.get('date', '')}. Written by "
      "`bash scripts/siconos_benchmarks.sh` (bench/perf/perf_siconos.cpp), not by `crbench report`. "
      "The Siconos solvers run the case through the bridge (solvers/siconos_bridge.cpp): one "
      "LagrangianDS whose dense mass matrix is recomputed and factorized at each evaluation, "
      "forces and Jacobians by callbacks into the case; a problem written natively for Siconos "
      "(constant mass, one DS per body) runs faster in it.\n")
print("| benchmark | crbench | Siconos | crbench / Siconos | steps (crbench, Siconos) | rhs evaluations (crbench, Siconos) |")
print("|---|---|---|---|---|---|")
for (what, arg), codes in medians.items():
    if "crbench" not in codes:
        continue
    label = labels.get(what, what).format(arg)
    ours = codes["crbench"]
    theirs = codes.get("siconos")
    if theirs:
        ratio = f"{ours['seconds'] / theirs['seconds']:.3g}"
        print(f"| {label} | {seconds(ours['seconds'])} | {seconds(theirs['seconds'])} | {ratio} | "
              f"{count(ours['steps'])}, {count(theirs['steps'])} | {count(ours['rhs'])}, {count(theirs['rhs'])} |")
    else:
        print(f"| {label} | {seconds(ours['seconds'])} | not run | - | {count(ours['steps'])}, - | "
              f"{count(ours['rhs'])}, - |")
PY
cat results/benchmarks/siconos.md
