// Siconos numerics' LCP solvers (Lemke, projected Gauss-Seidel) as the plugin siconos_numerics
// (solvers/plugin.hpp): solve_lcp (solvers/lcp.hpp) calls them where the problem is too large for
// the enumeration and not banded, or where they are asked for.
#pragma once

#include <Eigen/Core>

namespace crbench {

struct SiconosLcpPlugin {
  // w = M x + q, x ≥ 0, w ≥ 0, xᵀw = 0, by Lemke's method (lexicographic) or projected
  // Gauss-Seidel (max_iterations, tolerance); x and w are resized to m. Returns Siconos's info
  // (0: solved) and sets the iterations done.
  int (*solve)(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, bool lemke, int max_iterations,
               double tolerance, Eigen::VectorXd& x, Eigen::VectorXd& w, int& iterations);
};

}  // namespace crbench
