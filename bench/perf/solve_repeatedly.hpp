// What the solver-beside-solver benchmarks share (bench/perf/perf_siconos.cpp,
// bench/perf/perf_engines.cpp): one solve, repeated, with its deterministic counts per solve.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench::perf {

// Solves the case with the solver over and over; counters per solve: steps, right-hand-side
// evaluations (each code's own count: DLSODAR's f calls for siconos-event-driven, the case's
// force evaluations for siconos-moreau-jean) and the time per step.
inline void solve_repeatedly(benchmark::State& state, const std::string& case_name,
                             const std::string& solver_name,
                             const std::vector<crbench::Assignment>& params,
                             const std::vector<crbench::Assignment>& case_params = {},
                             double t_end = 0.0) {
  const auto model = crbench::make_model(case_name, case_params);
  const crbench::Solver& solver = crbench::find_solver(solver_name);
  crbench::RunSettings settings;
  settings.t_end = t_end > 0.0 ? t_end : model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0, evaluations = 0, solves = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != crbench::Status::ok) state.SkipWithError(("solve failed: " + r.reason).c_str());
    steps += r.steps;
    evaluations += r.rhs_evaluations;
    ++solves;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  if (solves == 0) return;
  state.counters["steps"] = static_cast<double>(steps) / static_cast<double>(solves);
  state.counters["rhs_evaluations"] =
      static_cast<double>(evaluations) / static_cast<double>(solves);
  state.counters["time_per_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace crbench::perf
