// Google Benchmark: Moreau–Jean cost per step. Siconos 4.4 takes about 4.5 µs per step on these
// problems on this kind of machine ; the counter `time_per_step` is the figure to compare.
#include <benchmark/benchmark.h>

#include <string>

#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace {

void run_moreau_jean(benchmark::State& state, const char* case_name,
                     std::vector<crbench::Assignment> params,
                     const std::vector<crbench::Assignment>& case_params = {}, double t_end = 0.0) {
  const auto model = crbench::make_model(case_name, case_params);
  const crbench::Solver& solver = crbench::find_solver("moreau-jean");
  crbench::RunSettings settings;
  settings.t_end = t_end > 0.0 ? t_end : model->horizon();
  crbench::configure_solver(solver, params, settings);
  long steps = 0;
  for (auto _ : state) {
    const crbench::RunRecord r = solver.run(*model, settings);
    if (r.status != crbench::Status::ok) state.SkipWithError("solve failed");
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

// ball-chain (Newton's cradle) with n = 10, 100, 1000 balls 0.01 apart, e = 1, h = 1e-3 on
// [0, 2]: 2000 steps in the sparse form (cases/sparse_terms.hpp), one or two contacts active in a
// step as the impulse runs down the chain (200 binary impacts in 2 s). The cost should grow
// like n (the O(n) vector work of a step); touching balls would make every contact active at
// once, and their LCP is dense (see the Lcp benchmarks).
void BM_MoreauJeanBallChain(benchmark::State& state) {
  const std::string n = std::to_string(state.range(0));
  run_moreau_jean(state, "ball-chain", {{"h", "1e-3"}, {"restitution", "1"}},
                  {{"n", n}, {"gap", "0.01"}}, 2.0);
}
BENCHMARK(BM_MoreauJeanBallChain)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// The touching chain (gap 0, e = 1, h = 1e-3, 100 steps on [0, 0.1]): every contact is active in
// every step, and the step's LCP has all n − 1 of them. Its Delassus matrix is tridiagonal, and
// the banded LCP (solvers/lcp.hpp) keeps the step O(n): time_per_step against n should grow
// with exponent at most about 1 (Lemke's method on the dense matrix: O(n³), 0.24 s a step at
// n = 1000).
void BM_MoreauJeanTouchingChain(benchmark::State& state) {
  const std::string n = std::to_string(state.range(0));
  run_moreau_jean(state, "ball-chain", {{"h", "1e-3"}, {"restitution", "1"}},
                  {{"n", n}, {"gap", "0"}}, 0.5);
}
BENCHMARK(BM_MoreauJeanTouchingChain)
    ->Arg(10)
    ->Arg(30)
    ->Arg(100)
    ->Arg(300)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
