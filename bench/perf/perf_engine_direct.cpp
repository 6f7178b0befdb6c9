// Google Benchmark: what crbench's engine solvers add to the engine's own step. The direct
// programs (bench/perf/direct_engines.hpp) run dk-plane's scene with the mapped viscous contact at
// N = 1e4 and h = 1e-4 for 30 000 steps, as BM_EnginesDkPlane runs crbench's solvers
// (bench/perf/perf_engines.cpp); each also runs one step alone, the scene's build with one step,
// so that a step's cost is (T(30 000 steps) - T(1 step)) / 29 999 on both sides, the build apart.
// bash scripts/engine_benchmarks.sh writes the ratios. Built with at least one engine.
#if defined(CRBENCH_HAVE_MUJOCO) || defined(CRBENCH_HAVE_ODE) || defined(CRBENCH_HAVE_BULLET)
#include <benchmark/benchmark.h>

#include <string>

#include "crbench/bench/perf/direct_engines.hpp"
#include "crbench/bench/perf/solve_repeatedly.hpp"

namespace {

constexpr double kStep = 1e-4;
constexpr long kSteps = 30000;  // dk-plane's horizon 3 at h = 1e-4

const crbench::direct::Contact kViscous{.engine_default = false, .damping = 1e4};

// The direct program built and stepped `steps` times with dk-plane's switching force.
template <class World, class... Args>
void run_direct(benchmark::State& state, long steps, Args... args) {
  for (auto _ : state) {
    World world(args...);
    for (long k = 0; k < steps; ++k) world.step(crbench::direct::switching_force(world.x()));
    benchmark::DoNotOptimize(world.z());
  }
  state.counters["steps"] = static_cast<double>(steps);
}

void run_direct(benchmark::State& state, const std::string& engine, long steps) {
#ifdef CRBENCH_HAVE_MUJOCO
  if (engine == "mujoco") run_direct<crbench::direct::Mujoco>(state, steps, false, kViscous, kStep);
#endif
#ifdef CRBENCH_HAVE_ODE
  if (engine == "ode") run_direct<crbench::direct::Ode>(state, steps, kViscous, kStep);
#endif
#ifdef CRBENCH_HAVE_BULLET
  if (engine == "bullet") run_direct<crbench::direct::Bullet>(state, steps, kViscous, kStep);
#endif
}

void BM_EnginesDirectDkPlane(benchmark::State& state, const char* engine) {
  run_direct(state, engine, kSteps);
}
void BM_EnginesDirectDkPlaneOneStep(benchmark::State& state, const char* engine) {
  run_direct(state, engine, 1);
}

// crbench's solver on the same problem for one step: its scene's build with one step.
void BM_EnginesDkPlaneOneStep(benchmark::State& state, const char* solver) {
  crbench::perf::solve_repeatedly(state, "dk-plane", solver,
                                  {{"N", "1e4"}, {"preset", "viscous"}, {"h", "1e-4"}}, {}, kStep);
}

#define CRBENCH_DIRECT_BENCHMARKS(engine)                                                     \
  BENCHMARK_CAPTURE(BM_EnginesDirectDkPlane, engine, #engine)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_EnginesDirectDkPlaneOneStep, engine, #engine)                          \
      ->Unit(benchmark::kMicrosecond);                                                        \
  BENCHMARK_CAPTURE(BM_EnginesDkPlaneOneStep, engine, #engine)->Unit(benchmark::kMicrosecond)

#ifdef CRBENCH_HAVE_MUJOCO
CRBENCH_DIRECT_BENCHMARKS(mujoco);
#endif
#ifdef CRBENCH_HAVE_ODE
CRBENCH_DIRECT_BENCHMARKS(ode);
#endif
#ifdef CRBENCH_HAVE_BULLET
CRBENCH_DIRECT_BENCHMARKS(bullet);
#endif

}  // namespace
#endif
