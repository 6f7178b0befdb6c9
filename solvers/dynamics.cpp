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

namespace {

// The motion allowed by the kinematic constraints a q̇ + b = 0 (d'Alembert–Lagrange: reactions
// aᵀν): q̈ = q̈₀ + P Jᵀλ for contact reactions Jᵀλ, with
//   ν₀ = −(a A⁻¹ aᵀ)⁻¹ (a A⁻¹ F + ġ_rate),  q̈₀ = A⁻¹(F + aᵀν₀),
//   P = A⁻¹ − A⁻¹aᵀ (a A⁻¹ aᵀ)⁻¹ a A⁻¹  (A⁻¹ restricted to velocities with a q̇ = 0).
struct KinematicMotion {
  Eigen::MatrixXd P;
  Eigen::VectorXd qdd0;
  Eigen::VectorXd nu0;
  Eigen::MatrixXd Sinv_a_Ainv;  // (a A⁻¹ aᵀ)⁻¹ a A⁻¹, for the kinematic share of contact forces
  bool ok = true;
  std::string reason;
};

KinematicMotion kinematic_motion(const Point& p, const Eigen::LDLT<Eigen::MatrixXd>& A_ldlt,
                                 const Eigen::VectorXd& F) {
  KinematicMotion out;
  const Eigen::MatrixXd Ainv = A_ldlt.solve(Eigen::MatrixXd::Identity(p.A.rows(), p.A.cols()));
  const Eigen::MatrixXd Ainv_at = Ainv * p.a.transpose();
  const Eigen::MatrixXd S = p.a * Ainv_at;
  const Eigen::LDLT<Eigen::MatrixXd> S_ldlt(S);
  const double rcond = reciprocal_condition(S_ldlt);
  if (!(rcond >= kActiveSetMinRcond)) {
    std::ostringstream why;
    why << "the kinematic constraints are singular here: rcond(a A^-1 a^T) = " << rcond;
    out.ok = false;
    out.reason = why.str();
    return out;
  }
  out.Sinv_a_Ainv = S_ldlt.solve(Ainv_at.transpose());
  out.nu0 = -S_ldlt.solve(p.a * (Ainv * F) + p.g_rate);
  out.qdd0 = Ainv * (F + p.a.transpose() * out.nu0);
  out.P = Ainv - Ainv_at * out.Sinv_a_Ainv;
  return out;
}

}  // namespace

void keep_kinematic_rows(Point& p, const std::vector<int>& rows) {
  if (static_cast<Eigen::Index>(rows.size()) == p.a.rows()) return;
  const auto k = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd a(k, p.a.cols()), curl(k, p.curl.cols());
  Eigen::VectorXd g(k), g_rate(k);
  for (Eigen::Index r = 0; r < k; ++r) {
    const int row = rows[static_cast<std::size_t>(r)];
    a.row(r) = p.a.row(row);
    curl.row(r) = p.curl.row(row);
    g(r) = p.g(row);
    g_rate(r) = p.g_rate(row);
  }
  p.a = std::move(a);
  p.curl = std::move(curl);
  p.g = std::move(g);
  p.g_rate = std::move(g_rate);
}

Delassus delassus(const Point& p, const std::vector<int>& rows) {
  const Eigen::Index k = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd Jk(k, p.J.cols());
  for (Eigen::Index r = 0; r < k; ++r) Jk.row(r) = p.J.row(rows[static_cast<std::size_t>(r)]);
  return delassus_of_rows(p, Jk);
}

Delassus delassus_of_rows(const Point& p, const Eigen::MatrixXd& Jk) {
  const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(p.A);
  Delassus out;
  if (p.a.rows() > 0) {
    // Impulses and projections must keep a q̇ + b = 0: A⁻¹ restricted to those velocities.
    const KinematicMotion km = kinematic_motion(p, A_ldlt, Eigen::VectorXd::Zero(p.A.rows()));
    out.Ainv_Jt = km.P * Jk.transpose();
  } else {
    out.Ainv_Jt = A_ldlt.solve(Jk.transpose());
  }
  out.W = Jk * out.Ainv_Jt;
  return out;
}

namespace {

// A failed factorization, and why: a NaN or an infinity from the case (checked only here, off
// the hot path) would otherwise show up as a singular metric or active set.
ConstrainedAcceleration failed(const Point& p, std::string reason) {
  ConstrainedAcceleration out;
  out.ok = false;
  if (!p.A.allFinite() || !p.f.allFinite() || !p.J.allFinite() || !p.d.allFinite() ||
      !p.free_force().allFinite()) {
    out.status = "non_finite";
    out.reason = "the case gives a non-finite metric, constraint value, gradient or force";
  } else {
    out.reason = std::move(reason);
  }
  return out;
}

}  // namespace

ConstrainedAcceleration constrained_acceleration(const Point& p, const std::vector<int>& active) {
  ConstrainedAcceleration out;
  const Eigen::LDLT<Eigen::MatrixXd> A_ldlt(p.A);
  if (!(reciprocal_condition(A_ldlt) >= 1e-14)) {
    return failed(p, "kinetic metric A(q) is not positive definite");
  }
  const Eigen::VectorXd F = p.free_force();
  const bool kinematic = p.a.rows() > 0;
  KinematicMotion km;
  if (kinematic) {
    km = kinematic_motion(p, A_ldlt, F);
    if (!km.ok) return failed(p, km.reason);
  }
  const Eigen::VectorXd Ainv_F = kinematic ? km.qdd0 : A_ldlt.solve(F);
  if (active.empty()) {
    out.qdd = Ainv_F;
    if (kinematic) out.kinematic_lambda = km.nu0;
    return out;
  }
  const Eigen::Index k = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd Jk(k, p.J.cols());
  Eigen::VectorXd dk(k);
  for (Eigen::Index r = 0; r < k; ++r) {
    Jk.row(r) = p.J.row(active[static_cast<std::size_t>(r)]);
    dk(r) = p.d(active[static_cast<std::size_t>(r)]);
  }
  const Eigen::MatrixXd Ainv_Jt = kinematic ? Eigen::MatrixXd(km.P * Jk.transpose())
                                            : Eigen::MatrixXd(A_ldlt.solve(Jk.transpose()));
  const Eigen::MatrixXd W = Jk * Ainv_Jt;
  const Eigen::LDLT<Eigen::MatrixXd> W_ldlt(W);
  out.rcond = reciprocal_condition(W_ldlt);
  if (!(out.rcond >= kActiveSetMinRcond)) {
    std::ostringstream why;
    why << "active set {";
    for (std::size_t i = 0; i < active.size(); ++i) why << (i ? "," : "") << active[i];
    why << "} is singular or ill-conditioned: rcond(J A^-1 J^T) = " << out.rcond;
    ConstrainedAcceleration failure = failed(p, why.str());
    failure.rcond = out.rcond;
    return failure;
  }
  out.lambda = W_ldlt.solve(-(Jk * Ainv_F + dk));
  out.qdd = Ainv_F + Ainv_Jt * out.lambda;
  out.mu = out.lambda.cwiseProduct(W.diagonal().cwiseSqrt());
  if (kinematic) out.kinematic_lambda = km.nu0 - km.Sinv_a_Ainv * (Jk.transpose() * out.lambda);
  return out;
}

}  // namespace crbench
