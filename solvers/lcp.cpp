#include "solvers/lcp.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <vector>

#include "solvers/dynamics.hpp"

namespace crbench {

std::optional<LcpSolution> solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& b,
                                     double tolerance, double scale) {
  const int m = static_cast<int>(b.size());
  if (m == 0) return LcpSolution{Eigen::VectorXd(0), Eigen::VectorXd(0)};
  if (m > kLcpMaxSize) return std::nullopt;
  const double slack = tolerance * std::max(scale, b.cwiseAbs().maxCoeff());
  // Subsets in order of increasing size, so the answer with fewest active entries wins ties.
  std::vector<unsigned> sets(1u << m);
  for (unsigned s = 0; s < sets.size(); ++s) sets[s] = s;
  std::stable_sort(sets.begin(), sets.end(), [](unsigned a, unsigned c) {
    return __builtin_popcount(a) < __builtin_popcount(c);
  });
  for (const unsigned set : sets) {
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
    return LcpSolution{x, w};
  }
  return std::nullopt;
}

}  // namespace crbench
