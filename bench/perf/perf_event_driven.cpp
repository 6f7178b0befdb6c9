// Google Benchmark: one event-driven dk-plane solve (Deryabin & Kozlov 1995 §6) at the default
// tolerances (rtol 1e-12, atol 1e-14), from the initial data to the horizon t = 3. The model is
// built once; the timed region is the solve alone, as `wall_time_s` in a record.
#include <benchmark/benchmark.h>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace {

void BM_EventDrivenDkPlane(benchmark::State& state) {
  const auto model = crbench::make_model("dk-plane", {});
  const crbench::Solver& solver = crbench::find_solver("event-driven");
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(solver, {}, settings);
  long steps = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != crbench::Status::ok || !r.lift_off_time) state.SkipWithError("solve failed");
    steps = r.steps;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_EventDrivenDkPlane)->Unit(benchmark::kMicrosecond);

}  // namespace
