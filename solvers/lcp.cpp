#include "crbench/solvers/lcp.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "crbench/solvers/dynamics.hpp"

extern "C" {
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
}

namespace crbench {

LcpMethod lcp_method(const std::string& name) {
  if (name == "enumeration") return LcpMethod::enumeration;
  if (name == "lemke") return LcpMethod::lemke;
  if (name == "pgs") return LcpMethod::pgs;
  if (name == "auto") return LcpMethod::automatic;
  throw std::invalid_argument("lcp: unknown method '" + name + "'");
}

namespace {

std::optional<LcpSolution> enumerate(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double slack) {
  const int m = static_cast<int>(b.size());
  if (m > kLcpMaxSize) return std::nullopt;
  long examined = 0;
  // Subsets in order of increasing size, so the answer with fewest active entries wins ties.
  std::vector<unsigned> sets(1u << m);
  for (unsigned s = 0; s < sets.size(); ++s) sets[s] = s;
  std::stable_sort(sets.begin(), sets.end(), [](unsigned a, unsigned c) {
    return __builtin_popcount(a) < __builtin_popcount(c);
  });
  for (const unsigned set : sets) {
    ++examined;
    std::vector<int> idx;
    for (int i = 0; i < m; ++i) {
      if (set & (1u << i)) idx.push_back(i);
    }
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
    if (!idx.empty()) {
      const Eigen::Index k = static_cast<Eigen::Index>(idx.size());
      Eigen::MatrixXd Mk(k, k);
      Eigen::VectorXd bk(k);
      for (Eigen::Index r = 0; r < k; ++r) {
        bk(r) = b(idx[static_cast<std::size_t>(r)]);
        for (Eigen::Index c = 0; c < k; ++c) {
          Mk(r, c) = M(idx[static_cast<std::size_t>(r)], idx[static_cast<std::size_t>(c)]);
        }
      }
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(Mk);
      if (!(reciprocal_condition(ldlt) > 1e-14)) continue;
      const Eigen::VectorXd xk = ldlt.solve(-bk);
      for (Eigen::Index r = 0; r < k; ++r) x(idx[static_cast<std::size_t>(r)]) = xk(r);
    }
    Eigen::VectorXd w = M * x + b;
    bool feasible = true;
    for (int i = 0; i < m && feasible; ++i) {
      const bool in_set = (set & (1u << i)) != 0;
      feasible = in_set ? x(i) >= -slack : w(i) >= -slack;
    }
    if (!feasible) continue;
    for (int i = 0; i < m; ++i) {
      if (set & (1u << i)) {
        w(i) = 0.0;
        x(i) = std::max(x(i), 0.0);
      }
    }
    return LcpSolution{x, w, examined};
  }
  return std::nullopt;
}

// Siconos numerics (a C library): the problem's matrix is copied into a dense NumericsMatrix
// (column-major, as Eigen's), z is the unknown x, w = M z + q.
std::optional<LcpSolution> siconos_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                       double slack, const LcpOptions& options) {
  const int m = static_cast<int>(b.size());
  const bool lemke = options.method == LcpMethod::lemke;
  const auto delete_matrix = [](NumericsMatrix* matrix) { NM_free(matrix); };
  const std::unique_ptr<NumericsMatrix, decltype(delete_matrix)> matrix(NM_create(NM_DENSE, m, m),
                                                                        delete_matrix);
  std::copy(M.data(), M.data() + M.size(), matrix->matrix0);
  Eigen::VectorXd q = b;
  LinearComplementarityProblem problem{m, matrix.get(), q.data()};
  const auto delete_options = [](SolverOptions* o) { solver_options_delete(o); };
  const std::unique_ptr<SolverOptions, decltype(delete_options)> solver(
      solver_options_create(lemke ? SICONOS_LCP_LEMKE : SICONOS_LCP_PGS), delete_options);
  if (lemke) {
    // Enough pivots for any nondegenerate problem of this size (Lemke visits each basis once).
    solver->iparam[SICONOS_IPARAM_MAX_ITER] = std::max(1000, 20 * m);
  } else {
    solver->iparam[SICONOS_IPARAM_MAX_ITER] = options.pgs_max_iterations;
    solver->dparam[SICONOS_DPARAM_TOL] = options.pgs_tolerance;
  }
  Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(m);
  int info = 0;
  if (lemke) {
    lcp_lexicolemke(&problem, x.data(), w.data(), &info, solver.get());
  } else {
    lcp_pgs(&problem, x.data(), w.data(), &info, solver.get());
  }
  if (info != 0 || !x.allFinite()) return std::nullopt;
  // The same acceptance as the enumeration, in velocity units (those of b): w ≥ 0 within the
  // slack, and complementarity: where w exceeds the slack, x may move the velocities by no more
  // than the slack (M_ii x_i).
  x = x.cwiseMax(0.0);
  w = M * x + b;
  for (int i = 0; i < m; ++i) {
    if (w(i) < -slack || (w(i) > slack && M(i, i) * x(i) > slack)) return std::nullopt;
  }
  return LcpSolution{x, w, solver->iparam[SICONOS_IPARAM_ITER_DONE]};
}

}  // namespace

std::optional<LcpSolution> solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double tolerance, double scale, const LcpOptions& options) {
  const int m = static_cast<int>(b.size());
  if (m == 0) return LcpSolution{Eigen::VectorXd(0), Eigen::VectorXd(0), 0};
  const double magnitude = std::max(scale, b.cwiseAbs().maxCoeff());
  const double slack = tolerance * magnitude;
  LcpOptions chosen = options;
  if (chosen.method == LcpMethod::automatic) {
    chosen.method = m <= kLcpEnumerationSize ? LcpMethod::enumeration : LcpMethod::lemke;
  }
  if (chosen.method == LcpMethod::enumeration) return enumerate(M, b, slack);
  if (chosen.method == LcpMethod::pgs) {
    // The iteration stops at its own tolerance; the acceptance allows that much more.
    return siconos_lcp(M, b, std::max(slack, 10.0 * options.pgs_tolerance * magnitude), chosen);
  }
  return siconos_lcp(M, b, slack, chosen);
}

}  // namespace crbench
