// Google Benchmark: the impulse LCP of m simultaneous contacts (solvers/lcp.hpp) on the Delassus
// matrix of a row of unit balls (tridiagonal 2, −1) hit at one end, b = (−1, 0, …, 0): every
// contact ends up pushed. The enumeration's cost doubles with each row (2^m index sets, up to
// kLcpMaxSize = 16); Lemke's method (Siconos numerics' lcp_lexicolemke) makes m pivots on a dense
// tableau, O(m³) in all; projected Gauss–Seidel (lcp_pgs, tolerance 1e-12) needs a number of
// sweeps that grows with the chain's conditioning (about m²); the banded method (block principal
// pivoting with banded LDLᵀ solves) needs one solve of O(m) here. Counter `iterations`: index
// sets, pivots, sweeps or block pivots.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include "crbench/solvers/lcp.hpp"

namespace {

// The chain's problem of size m: M tridiagonal (2, −1), b = (−1, 0, …, 0).
Eigen::VectorXd chain_b(int m) {
  Eigen::VectorXd b = Eigen::VectorXd::Zero(m);
  b(0) = -1.0;
  return b;
}

// Times `solve` (returning std::optional<LcpSolution>), with its last iteration count.
template <class Solve>
void time_lcp(benchmark::State& state, Solve&& solve) {
  long iterations = 0;
  for (auto _ : state) {
    const auto solution = solve();
    if (!solution) {
      state.SkipWithError("no solution");
      break;
    }
    iterations = solution->iterations;
    benchmark::DoNotOptimize(solution->x.data());
  }
  state.counters["iterations"] = static_cast<double>(iterations);
}

void run_lcp(benchmark::State& state, crbench::LcpMethod method) {
  const int m = static_cast<int>(state.range(0));
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m, m);
  for (int i = 0; i < m; ++i) {
    M(i, i) = 2.0;
    if (i + 1 < m) M(i, i + 1) = M(i + 1, i) = -1.0;
  }
  const Eigen::VectorXd b = chain_b(m);
  const crbench::LcpOptions options{
      .method = method, .pgs_tolerance = 1e-12, .pgs_max_iterations = 10000000};
  time_lcp(state, [&] { return crbench::solve_lcp(M, b, 1e-9, 1.0, options); });
}

void BM_LcpEnumeration(benchmark::State& s) { run_lcp(s, crbench::LcpMethod::enumeration); }
void BM_LcpLemke(benchmark::State& s) { run_lcp(s, crbench::LcpMethod::lemke); }
void BM_LcpPgs(benchmark::State& s) { run_lcp(s, crbench::LcpMethod::pgs); }

// The banded method on the band itself (as Moreau–Jean's sparse step builds it), without the
// dense matrix the others take.
void BM_LcpBanded(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  crbench::BandedSymmetric M;
  M.resize(m, 1);
  for (int i = 0; i < m; ++i) {
    M.lower(i, 0) = 2.0;
    if (i > 0) M.lower(i, 1) = -1.0;
  }
  const Eigen::VectorXd b = chain_b(m);
  time_lcp(state, [&] { return crbench::solve_banded_lcp(M, b, 1e-9, 1.0); });
}

BENCHMARK(BM_LcpEnumeration)->Arg(4)->Arg(8)->Arg(12)->Arg(16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LcpLemke)
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Arg(16)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LcpPgs)->Arg(4)->Arg(16)->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LcpBanded)
    ->Arg(4)
    ->Arg(16)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
