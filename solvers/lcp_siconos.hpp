// Siconos numerics' LCP solvers (Lemke, projected Gauss-Seidel) and its two-dimensional
// frictional contact solver as the plugin siconos_numerics (solvers/plugin.hpp): solve_lcp
// (solvers/lcp.hpp) calls the first where the problem is too large for the enumeration and not
// banded, or where they are asked for; solve_friction_contact_2d the second.
#pragma once

#include <Eigen/Core>

namespace crbench {

struct SiconosLcpPlugin {
  // w = M x + q, x ≥ 0, w ≥ 0, xᵀw = 0, by Lemke's method (lexicographic) or projected
  // Gauss-Seidel (max_iterations, tolerance); x and w are resized to m. Returns Siconos's info
  // (0: solved) and sets the iterations done.
  int (*solve)(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, bool lemke, int max_iterations,
               double tolerance, Eigen::VectorXd& x, Eigen::VectorXd& w, int& iterations);
  // The frictional contact problem of dimension 2 (Siconos's FC(M, q, mu)): u = M r + q with,
  // per contact k, (u, r) at (2k, 2k + 1) its normal and tangential components, 0 <= u_N _|_ r_N
  // >= 0 and |r_T| <= mu_k r_N with r_T = -mu_k r_N sign(u_T) where u_T != 0. By
  // fc2d_lexicolemke (its reformulation as an LCP of 3 rows per contact, Lemke's method) or, with
  // `enumerate`, fc2d_enum (the contacts' modes tried in turn); r and u are resized. Returns
  // Siconos's info (0: solved; Lemke may also return 0 with a wrong answer, which the caller
  // checks).
  int (*solve_friction)(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& mu, bool enumerate, Eigen::VectorXd& r,
                        Eigen::VectorXd& u);
};

}  // namespace crbench
