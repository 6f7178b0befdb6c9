// Google Benchmark: one dk-plane realization solve (Deryabin & Kozlov 1995 §6) for N = 1e2, 1e4, …,
// 1e12 and each preset (particle-on-circle viscous to 1e8; counter time_per_step), at the default
// tolerances (rtol 1e-12, atol 1e-14; atol/N on positions, atol/√N on velocities in the stiff
// phases). The cost should not grow with N once the transient is resolved. The penalty preset's
// exact motion carries an undamped normal oscillation of frequency √N whose amplitude is that of
// the penetration itself, so its cost grows like √N: DOP853 follows it with about 35 steps per
// period (counter steps_per_period: the DOP853 steps over the periods spent in the medium,
// √N·lift_off/2π) up to N = 1e12; the Rosenbrock method of the stiff phases
// (--oscillation rosenbrock4) needs about 2000 and is timed up to 1e6 for comparison.
//
// The knife edge on an incline (Kozlov 1992 §2–3): the realizations (0,1) (friction, stiff: the
// Rosenbrock method in the velocity chart of solvers/velocity_chart.hpp), (1,0) and (1,1) (added
// mass: dopri5 in the same chart) for N = 1e2 … 1e12. Their cost should not grow with N; the
// deterministic counts (steps, rhs evaluations) are the counters.
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <string>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace {

// per_period: report the DOP853 steps per period of the undamped oscillation (the whole stay in
// the medium oscillates only without damping).
void run_realization(benchmark::State& state, std::vector<crbench::Assignment> params,
                     const std::string& case_name = "dk-plane", bool per_period = false) {
  const auto model = crbench::make_model(case_name, {});
  const bool lift_off_expected = case_name == "dk-plane";
  const crbench::Solver& solver = crbench::find_solver("realization");
  const double N = std::pow(10.0, static_cast<double>(state.range(0)));
  params.push_back({"N", crbench::format_number(N)});
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0;
  long total_steps = 0;
  long rhs_evaluations = 0;
  double oscillatory_steps = 0.0;
  double lift_off = 0.0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != crbench::Status::ok || (lift_off_expected && !r.lift_off_time)) {
      state.SkipWithError("solve failed");
    }
    steps = r.steps;
    total_steps += r.steps;
    rhs_evaluations = r.rhs_evaluations;
    oscillatory_steps = r.diagnostics.value("oscillatory_steps", 0.0);
    lift_off = r.lift_off_time.value_or(0.0);
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["rhs_evaluations"] = static_cast<double>(rhs_evaluations);
  // Seconds per accepted step, printed with an SI prefix (e.g. 5.9u = 5.9 µs).
  state.counters["time_per_step"] = benchmark::Counter(
      static_cast<double>(total_steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (per_period && oscillatory_steps > 0.0 && lift_off > 0.0) {
    state.counters["steps_per_period"] =
        oscillatory_steps / (std::sqrt(N) * lift_off / (2.0 * std::numbers::pi));
  }
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
void BM_RealizationCircleViscous(benchmark::State& s) {
  run_realization(s, {{"preset", "viscous"}}, "particle-on-circle");
}
void BM_RealizationPenalty(benchmark::State& s) {
  run_realization(s, {{"preset", "penalty"}}, "dk-plane", true);
}
void BM_RealizationPenaltyRosenbrock(benchmark::State& s) {
  run_realization(s, {{"preset", "penalty"}, {"oscillation", "rosenbrock4"}});
}
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
BENCHMARK(BM_RealizationCircleViscous)->DenseRange(2, 8, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationPenalty)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealizationPenaltyRosenbrock)->DenseRange(2, 6, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeFriction01)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeAddedMass10)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnifeEdgeMixed11)->DenseRange(2, 12, 2)->Unit(benchmark::kMillisecond);

}  // namespace
