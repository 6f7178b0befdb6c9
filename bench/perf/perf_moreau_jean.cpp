// Google Benchmark: Moreau–Jean cost per step. Siconos 4.4 takes about 4.5 µs per step on these
// problems on this kind of machine ; the counter `time_per_step` is the figure to compare.
#include <benchmark/benchmark.h>

#include "cases/registry.hpp"
#include "solvers/solver.hpp"

namespace {

void run_moreau_jean(benchmark::State& state, const char* case_name,
                     std::vector<crbench::Assignment> params) {
  const auto model = crbench::make_model(case_name, {});
  const crbench::Solver& solver = crbench::find_solver("moreau-jean");
  crbench::RunSettings settings;
  settings.t_end = model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != "ok") state.SkipWithError("solve failed");
    steps += r.steps;
    benchmark::DoNotOptimize(r.final_state.q.data());
  }
  // Seconds per step, printed with an SI prefix (e.g. 706n = 0.706 µs).
  state.counters["time_per_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Siconos's own run: h = 0.005 on [0, 10], e = 0.9, 2000 steps.
void BM_MoreauJeanBouncingBallSiconos(benchmark::State& state) {
  run_moreau_jean(state, "bouncing-ball-siconos", {{"h", "0.005"}, {"restitution", "0.9"}});
}
BENCHMARK(BM_MoreauJeanBouncingBallSiconos)->Unit(benchmark::kMillisecond);

// dk-plane with h = 1e-3 on [0, 3], 3000 steps.
void BM_MoreauJeanDkPlane(benchmark::State& state) {
  run_moreau_jean(state, "dk-plane", {{"h", "1e-3"}});
}
BENCHMARK(BM_MoreauJeanDkPlane)->Unit(benchmark::kMillisecond);

}  // namespace
