// Google Benchmark: the physics engines' contacts beside crbench's solvers on the same problem
// (`crbench_perf --benchmark_filter=Engines`): dk-plane's viscous obstacle at N = 1e4 (the
// engines at h = 1e-4, 30 000 steps; crbench's realization adaptive at its default tolerances;
// moreau-jean, the ideal limit, at the same h) and a ball chain with gaps (penalty obstacle,
// N = 1e4). Each benchmark's argument is the code; the ratios of the medians are the comparison.
// bash scripts/engine_benchmarks.sh runs them pinned to one core and writes the medians and the
// ratios to results/benchmarks/engines.md. Built with at least one engine.
#if defined(CRBENCH_HAVE_MUJOCO) || defined(CRBENCH_HAVE_ODE) || defined(CRBENCH_HAVE_BULLET)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "crbench/bench/perf/solve_repeatedly.hpp"

namespace {

using crbench::perf::solve_repeatedly;

// The settings of each code on the viscous (or penalty) obstacle at N = 1e4: an engine's step h,
// the realization's obstacle interaction, moreau-jean's step (no N: the limit it converges to).
std::vector<crbench::Assignment> settings_of(const std::string& solver, const char* preset) {
  if (solver == "realization")
    return {{"N", "1e4"}, {"preset", preset}, {"interaction", "obstacle"}};
  if (solver == "moreau-jean") return {{"h", "1e-4"}};
  return {{"N", "1e4"}, {"preset", preset}, {"h", "1e-4"}};
}

void BM_EnginesDkPlane(benchmark::State& state, const char* solver) {
  solve_repeatedly(state, "dk-plane", solver, settings_of(solver, "viscous"));
}

// Ten balls 0.01 apart, the striker at 1, to t = 2 (a binary impact sequence along the chain).
void BM_EnginesBallChain(benchmark::State& state, const char* solver) {
  auto settings = settings_of(solver, "penalty");
  if (std::string(solver) == "moreau-jean") settings.push_back({"restitution", "1"});
  solve_repeatedly(state, "ball-chain", solver, settings, {{"n", "10"}, {"gap", "0.01"}}, 2.0);
}

#define CRBENCH_ENGINE_BENCHMARKS(code)                                             \
  BENCHMARK_CAPTURE(BM_EnginesDkPlane, code, #code)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_EnginesBallChain, code, #code)->Unit(benchmark::kMillisecond)

BENCHMARK_CAPTURE(BM_EnginesDkPlane, realization, "realization")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EnginesDkPlane, moreau_jean, "moreau-jean")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EnginesBallChain, realization, "realization")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EnginesBallChain, moreau_jean, "moreau-jean")->Unit(benchmark::kMillisecond);
#ifdef CRBENCH_HAVE_MUJOCO
CRBENCH_ENGINE_BENCHMARKS(mujoco);
#endif
#ifdef CRBENCH_HAVE_ODE
CRBENCH_ENGINE_BENCHMARKS(ode);
#endif
#ifdef CRBENCH_HAVE_BULLET
CRBENCH_ENGINE_BENCHMARKS(bullet);
#endif

}  // namespace
#endif
