// Google Benchmark: crbench's solvers beside the Siconos kernel's on the same case with the same
// tolerances or step, in one binary (`crbench_perf --benchmark_filter=Siconos`). Each benchmark
// has two arguments, crbench's solver and the Siconos one; the ratio of their medians is the
// comparison (docs/siconos.md). Run it pinned to one core with the kernel's
// OpenBLAS on one thread, as the comparison assumes:
//   OPENBLAS_NUM_THREADS=1 taskset -c 0 ./build/release/crbench_perf --benchmark_filter=Siconos
// (OpenBLAS's threaded LU spins on a loaded machine: ball-chain n = 100 took three times as long
// with its threads). bash scripts/siconos_benchmarks.sh does this and writes the medians and
// ratios to results/benchmarks/siconos.md. Built with the kernel only (CRBENCH_SICONOS).
#ifdef CRBENCH_HAVE_SICONOS
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "crbench/bench/perf/solve_repeatedly.hpp"

namespace {

using crbench::perf::solve_repeatedly;

// The lift-off solve: dk-plane from its initial data to the horizon t = 3 at rtol 1e-12,
// atol 1e-14 (event-driven: DOP853 with its events; Siconos: EventDriven with DLSODAR).
void BM_SiconosEventDrivenDkPlane(benchmark::State& state, const char* solver) {
  solve_repeatedly(state, "dk-plane", solver, {});
}
BENCHMARK_CAPTURE(BM_SiconosEventDrivenDkPlane, crbench, "event-driven")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SiconosEventDrivenDkPlane, siconos, "siconos-event-driven")
    ->Unit(benchmark::kMicrosecond);

// The same on a curved constraint: particle-on-circle to its horizon (lift-off at 1.1677).
void BM_SiconosEventDrivenParticleOnCircle(benchmark::State& state, const char* solver) {
  solve_repeatedly(state, "particle-on-circle", solver, {});
}
BENCHMARK_CAPTURE(BM_SiconosEventDrivenParticleOnCircle, crbench, "event-driven")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SiconosEventDrivenParticleOnCircle, siconos, "siconos-event-driven")
    ->Unit(benchmark::kMicrosecond);

// Moreau–Jean per step on dk-plane over [0, 3]: h = 1e-4 (30 000 steps) and 1e-5 (300 000).
void BM_SiconosMoreauJeanDkPlane(benchmark::State& state, const char* solver) {
  const std::string h = state.range(0) == 4 ? "1e-4" : "1e-5";
  solve_repeatedly(state, "dk-plane", solver, {{"h", h}});
}
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanDkPlane, crbench, "moreau-jean")
    ->Arg(4)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanDkPlane, siconos, "siconos-moreau-jean")
    ->Arg(4)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond);

// BouncingBallTS itself: h = 0.005, θ = 0.5, e = 0.9 on [0, 10], 2000 steps.
void BM_SiconosMoreauJeanBouncingBall(benchmark::State& state, const char* solver) {
  solve_repeatedly(state, "bouncing-ball-siconos", solver,
                   {{"h", "0.005"}, {"theta", "0.5"}, {"restitution", "0.9"}});
}
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanBouncingBall, crbench, "moreau-jean")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanBouncingBall, siconos, "siconos-moreau-jean")
    ->Unit(benchmark::kMillisecond);

// Newton's cradle, n balls 0.01 apart, e = 1, h = 1e-3 on [0, 2] (2000 steps), as
// BM_MoreauJeanBallChain. The kernel gets the chain as one LagrangianDS with a dense n × n mass
// matrix (the bridge's form for every case): its step factorizes an n × n iteration matrix, so
// n = 1000 (0.56 s a step, 19 minutes a solve) is left to crbench alone.
void BM_SiconosMoreauJeanBallChain(benchmark::State& state, const char* solver) {
  solve_repeatedly(state, "ball-chain", solver, {{"h", "1e-3"}, {"restitution", "1"}},
                   {{"n", std::to_string(state.range(0))}, {"gap", "0.01"}}, 2.0);
}
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanBallChain, crbench, "moreau-jean")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SiconosMoreauJeanBallChain, siconos, "siconos-moreau-jean")
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);

}  // namespace
#endif
