// Google Benchmark: one dk-plane realization solve (Deryabin & Kozlov 1995 §6) for N = 1e2, 1e4, …,
// 1e12 and each preset, at the default tolerances (rtol 1e-12, atol 1e-14; atol/N on positions,
// atol/√N on velocities in the stiff phases). The cost should not grow with N once the transient is
// resolved. The penalty preset is timed only up to N = 1e6: its exact motion carries an undamped
// normal oscillation of frequency √N whose amplitude is that of the penetration itself, so its cost
// grows like √N (about 3e5 steps at N = 1e6).
//
// The knife edge on an incline (Kozlov 1992 §2–3): the realizations (0,1) (friction, stiff: the
// Rosenbrock method in the velocity chart of solvers/velocity_chart.hpp), (1,0) and (1,1) (added
// mass: dopri5 in the same chart) for N = 1e2 … 1e12. Their cost should not grow with N; the
// deterministic counts (steps, rhs evaluations) are the counters.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "cases/registry.hpp"
#include "solvers/solver.hpp"

namespace {

void run_realization(benchmark::State& state, std::vector<crbench::Assignment> params,
                     const std::string& case_name = "dk-plane") {
  const auto model = crbench::make_model(case_name, {});
  const bool lift_off_expected = case_name == "dk-plane";
  const crbench::Solver& solver = crbench::find_solver("realization");
  const double N = std::pow(10.0, static_cast<double>(state.range(0)));
  params.push_back({"N", crbench::format_number(N)});
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0;
  long rhs_evaluations = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != "ok" || (lift_off_expected && !r.lift_off_time)) {
      state.SkipWithError("solve failed");
    }
    steps = r.steps;
    rhs_evaluations = r.rhs_evaluations;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["rhs_evaluations"] = static_cast<double>(rhs_evaluations);
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
void BM_KnifeEdgeFriction01(benchmark::State& s) {
  run_realization(s, {{"alpha", "0"}, {"beta", "1"}}, "knife-edge-incline");
}
void BM_KnifeEdgeAddedMass10(benchmark::State& s) {
  run_realization(s, {{"alpha", "1"}, {"beta", "0"}}, "knife-edge-incline");
}
void BM_KnifeEdgeMixed11(benchmark::State& s) {
  run_realization(s, {{"alpha", "1"}, {"beta", "1"}}, "knife-edge-incline");
}

BENCHMARK(BM_RealizationViscous)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationViscousObstacle)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationKozlovImpact)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationAddedMass101)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationPenalty)->DenseRange(2, 6, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeFriction01)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeAddedMass10)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeMixed11)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);

}  // namespace
