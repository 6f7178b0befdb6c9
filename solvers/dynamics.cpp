#include "solvers/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace crbench {

double reciprocal_condition(const Eigen::LDLT<Eigen::MatrixXd>& ldlt) {
  if (ldlt.info() != Eigen::Success || ldlt.rows() == 0) return ldlt.rows() == 0 ? 1.0 : 0.0;
  const Eigen::VectorXd D = ldlt.vectorD();
  const double largest = D.cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || D.minCoeff() <= 0.0) return 0.0;
  return std::min(ldlt.rcond(), D.minCoeff() / largest);
}

Delassus delassus(const Point& p, const std::vector<int>& rows) {
  const Eigen::Index k = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd Jk(k, p.J.cols());
  for (Eigen::Index r = 0; r < k; ++r) Jk.row(r) = p.J.row(rows[static_cast<std::size_t>(r)]);
  const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(p.A);
  Delassus out;
  out.Ainv_Jt = A_ldlt.solve(Jk.transpose());
  out.W = Jk * out.Ainv_Jt;
  return out;
}

ConstrainedAcceleration constrained_acceleration(const Point& p, const std::vector<int>& active) {
  ConstrainedAcceleration out;
  const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(p.A);
  if (!(reciprocal_condition(A_ldlt) >= 1e-14)) {
    out.ok = false;
    out.reason = "kinetic metric A(q) is not positive definite";
    return out;
  }
  const Eigen::VectorXd F = p.free_force();
  const Eigen::VectorXd Ainv_F = A_ldlt.solve(F);
  if (active.empty()) {
    out.qdd = Ainv_F;
    return out;
  }
  const Eigen::Index k = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd Jk(k, p.J.cols());
  Eigen::VectorXd dk(k);
  for (Eigen::Index r = 0; r < k; ++r) {
    Jk.row(r) = p.J.row(active[static_cast<std::size_t>(r)]);
    dk(r) = p.d(active[static_cast<std::size_t>(r)]);
  }
  const Eigen::MatrixXd Ainv_Jt = A_ldlt.solve(Jk.transpose());
  const Eigen::MatrixXd W = Jk * Ainv_Jt;
  const Eigen::LDLT<Eigen::MatrixXd> W_ldlt(W);
  out.rcond = reciprocal_condition(W_ldlt);
  if (!(out.rcond >= kActiveSetMinRcond)) {
    std::ostringstream why;
    why << "active set {";
    for (std::size_t i = 0; i < active.size(); ++i) why << (i ? "," : "") << active[i];
    why << "} is singular or ill-conditioned: rcond(J A^-1 J^T) = " << out.rcond;
    out.ok = false;
    out.reason = why.str();
    return out;
  }
  out.lambda = W_ldlt.solve(-(Jk * Ainv_F + dk));
  out.qdd = Ainv_F + Ainv_Jt * out.lambda;
  out.mu = out.lambda.cwiseProduct(W.diagonal().cwiseSqrt());
  return out;
}

}  // namespace crbench
