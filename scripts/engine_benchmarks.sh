#!/usr/bin/env bash
# The physics engines beside crbench's solvers on the same problems: runs the Engines benchmarks
# of crbench_perf (bench/perf/perf_engines.cpp, and the engines called directly:
# bench/perf/perf_engine_direct.cpp) pinned to one core and writes their medians, the
# deterministic counts (steps, right-hand-side evaluations) and the ratios of each code's time to
# crbench's realization and moreau-jean to results/benchmarks/engines.md (and prints it). Wall
# times on a shared machine vary from run to run; the counts do not.
#
# Usage: bash scripts/engine_benchmarks.sh [REPETITIONS] [CORE]
#   default: 3 repetitions (medians), core 0
source "$(dirname "$0")/benchmark_common.sh"
run_family Engines engine_benchmarks engine
/usr/bin/python3 - "$work/perf.json" "$repetitions" "${pin[*]:-unpinned}" > results/benchmarks/engines.md <<'PY'
import json, re, sys

data = json.load(open(sys.argv[1]))
repetitions, pinning = sys.argv[2], sys.argv[3]
problems = {}
for b in data["benchmarks"]:
    m = re.match(r"BM_Engines(\w+?)/(\w+)_median$", b["name"])
    if b.get("aggregate_name") != "median" or not m:
        continue
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    problems.setdefault(m.group(1), {})[m.group(2).replace("_", "-")] = {
        "seconds": b["real_time"] * scale, "steps": b.get("steps"), "rhs": b.get("rhs_evaluations")}
labels = {
    "DkPlane": "dk-plane, viscous obstacle N = 1e4, engines and moreau-jean at h = 1e-4, to t = 3",
    "BallChain": "ball-chain, 10 balls 0.01 apart, penalty obstacle N = 1e4, h = 1e-4, to t = 2",
}
def seconds(s):
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"
def ratio(code, base):
    return f"{code['seconds'] / base['seconds']:.3g}" if base else "-"
ctx = data.get("context", {})
print("# The physics engines beside crbench's solvers\n")
print(f"Google Benchmark medians of {repetitions} repetitions, `{pinning}`, on "
      f"{ctx.get('host_name', '?')} ({ctx.get('num_cpus', '?')} CPUs at "
      f"{ctx.get('mhz_per_cpu', '?')} MHz), {ctx.get('date', '')}. Written by "
      "`bash scripts/engine_benchmarks.sh` (bench/perf/perf_engines.cpp), not by `crbench report`. "
      "The engines take fixed steps; crbench's realization is adaptive (its default rtol 1e-12) "
      "and computes the same obstacle realization without a step error; moreau-jean computes the "
      "ideal model the realizations converge to. The engines run crbench's case through their "
      "adapters (docs/engines.md): the case's forces are evaluated by crbench at every step.\n")
# The direct programs and the one-step runs go into the overhead table below.
aside = {k: problems.pop(k, {}) for k in ("DirectDkPlane", "DirectDkPlaneOneStep", "DkPlaneOneStep")}
for problem, codes in problems.items():
    print(f"## {labels.get(problem, problem)}\n")
    print("| code | time per solve | steps | rhs evaluations | time per step | / realization | / moreau-jean |")
    print("|---|---|---|---|---|---|---|")
    for name, c in codes.items():
        per_step = seconds(c["seconds"] / c["steps"]) if c["steps"] else "-"
        print(f"| {name} | {seconds(c['seconds'])} | {c['steps']:.0f} | {c['rhs']:.0f} | {per_step} | "
              f"{ratio(c, codes.get('realization'))} | {ratio(c, codes.get('moreau-jean'))} |")
    print()
full, direct = problems.get("DkPlane", {}), aside["DirectDkPlane"]
one, direct_one = aside["DkPlaneOneStep"], aside["DirectDkPlaneOneStep"]
engines = [e for e in ("mujoco", "ode", "bullet") if e in full and e in direct and e in one and e in direct_one]
if engines:
    print("## crbench's engine solvers against the engines called directly\n")
    print("dk-plane's first problem above, written directly against each engine's library "
          "(bench/perf/direct_engines.hpp, bench/perf/perf_engine_direct.cpp; "
          "tests/test_engine_direct.cpp checks that both compute the same motion to 1e-12). "
          "A step's cost is (T(30 000 steps) - T(1 step)) / 29 999 on each side; the one-step run is "
          "the scene's build with one step. crbench's step includes the case's force, the "
          "constraint values and the record.\n")
    print("| engine | crbench per step | direct per step | crbench / direct | crbench build + 1 step | direct build + 1 step |")
    print("|---|---|---|---|---|---|")
    for e in engines:
        ours = (full[e]["seconds"] - one[e]["seconds"]) / 29999
        theirs = (direct[e]["seconds"] - direct_one[e]["seconds"]) / 29999
        print(f"| {e} | {seconds(ours)} | {seconds(theirs)} | {ours / theirs:.3f} | "
              f"{seconds(one[e]['seconds'])} | {seconds(direct_one[e]['seconds'])} |")
    print()
PY
cat results/benchmarks/engines.md
