// Google Benchmark: one dk-plane realization solve (Deryabin & Kozlov 1995 §6) for N = 1e2, 1e4, …,
// 1e12 and each preset, at the default tolerances (rtol 1e-12, atol 1e-14; atol/N on positions,
// atol/√N on velocities in the stiff phases). The cost should not grow with N once the transient is
// resolved. The penalty preset is timed only up to N = 1e6: its exact motion carries an undamped
// normal oscillation of frequency √N whose amplitude is that of the penetration itself, so its cost
// grows like √N (about 3e5 steps at N = 1e6).
#include <benchmark/benchmark.h>

#include <cmath>

#include "cases/registry.hpp"
#include "solvers/solver.hpp"

namespace {

void run_realization(benchmark::State& state, std::vector<crbench::Assignment> params) {
  const auto model = crbench::make_model("dk-plane", {});
  const crbench::Solver& solver = crbench::find_solver("realization");
  const double N = std::pow(10.0, static_cast<double>(state.range(0)));
  params.push_back({"N", crbench::format_number(N)});
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != "ok" || !r.lift_off_time) state.SkipWithError("solve failed");
    steps = r.steps;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.SetLabel("N=1e" + std::to_string(state.range(0)));
}

void BM_RealizationViscous(benchmark::State& s) { run_realization(s, {{"preset", "viscous"}}); }
void BM_RealizationViscousObstacle(benchmark::State& s) {
  run_realization(s, {{"preset", "viscous"}, {"interaction", "obstacle"}});
}
void BM_RealizationKozlovImpact(benchmark::State& s) {
  run_realization(s, {{"preset", "kozlov-impact"}});
}
void BM_RealizationAddedMass101(benchmark::State& s) {
  run_realization(s, {{"alpha", "1"}, {"beta", "0"}, {"gamma", "1"}});
}
void BM_RealizationPenalty(benchmark::State& s) { run_realization(s, {{"preset", "penalty"}}); }

BENCHMARK(BM_RealizationViscous)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationViscousObstacle)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationKozlovImpact)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationAddedMass101)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationPenalty)->DenseRange(2, 6, 2)->Unit(benchmark::kMillisecond);

}  // namespace
