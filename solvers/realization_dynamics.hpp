// The equations of motion of the (α,β,γ)N realization (Deryabin & Kozlov 1995 (1.8)) as functions
// of a point, written once for double and for Dual so that the stiff integrator gets its Jacobian
// by AD.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <stdexcept>
#include <vector>

#include "cases/case.hpp"

namespace crbench {

struct Medium {
  double mass;       // αN
  double damping;    // βN
  double stiffness;  // γN
  bool obstacle;     // the reaction acts only while it pushes
};

// q̈ and the multipliers λ_k of the pushing constraints, written once for double and Dual.
// `would_be` receives, for every constraint in the medium, −(α f̈ + β ḟ + γ f)N evaluated with
// this q̈: λ_k for a pushing constraint, and for a released one the sign its reaction would have.
template <class S>
Eigen::Matrix<S, Eigen::Dynamic, 1> acceleration(const PointT<S>& p,
                                                 const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                                                 const std::vector<char>& in_medium,
                                                 const std::vector<char>& pushing, const Medium& k,
                                                 Eigen::Matrix<S, Eigen::Dynamic, 1>* would_be) {
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::Index m = p.f.size();
  Matrix M = p.A;
  Vector r = p.free_force();
  const Vector rate = p.constraint_rate(v);
  for (Eigen::Index i = 0; i < m; ++i) {
    if (!pushing[static_cast<std::size_t>(i)]) continue;
    const Vector Jt = p.J.row(i).transpose();
    S normal = k.damping * rate(i) + k.stiffness * p.f(i);
    // d enters only through the added mass; skipping it at α = 0 keeps Jacobians free of d's
    // derivatives, which Model::evaluate_dual does not provide.
    if (k.mass != 0.0) {
      M += k.mass * Jt * Jt.transpose();
      normal += k.mass * p.d(i);
    }
    r -= Jt * normal;
  }
  // Kinematic constraints g = a q̇ + b = 0, realized everywhere (not only in a medium) by the
  // added mass αN g²/2 and the anisotropic friction βN g²/2 (Kozlov 1992 §2–3):
  //   (A + αN aᵀa) q̈ = F − N aᵀ(α g_rate + β g) + αN Ωᵀ g.
  for (Eigen::Index row = 0; row < p.a.rows(); ++row) {
    const Vector at = p.a.row(row).transpose();
    S normal = k.damping * p.g(row);
    if (k.mass != 0.0) {
      M += k.mass * at * at.transpose();
      normal += k.mass * p.g_rate(row);
      r += (k.mass * p.g(row)) * Vector(p.curl.row(row).transpose());
    }
    r -= at * normal;
  }
  const Vector qdd = M.partialPivLu().solve(r);
  if (would_be != nullptr) {
    would_be->setZero(m);
    for (Eigen::Index i = 0; i < m; ++i) {
      if (!in_medium[static_cast<std::size_t>(i)]) continue;
      S normal = k.damping * rate(i) + k.stiffness * p.f(i);
      if (k.mass != 0.0) normal += k.mass * (p.J.row(i).dot(qdd) + p.d(i));
      (*would_be)(i) = -normal;
    }
  }
  return qdd;
}

// ∂(q̇, q̈)/∂(q, q̇) and ∂(q̇, q̈)/∂t of the first-order system by forward AD through the case and
// the medium's equations. Needs α = 0 (d's derivatives are not available, see
// Model::evaluate_dual); with α > 0 the medium is not stiff and no Jacobian is needed.
inline void realization_jacobian(const Model& model, const State& x, Modes modes,
                                 const std::vector<char>& in_medium,
                                 const std::vector<char>& pushing, const Medium& medium,
                                 PointT<Dual>& work, Eigen::MatrixXd& jac, Eigen::VectorXd& dfdt) {
  if (medium.mass != 0.0) {
    throw std::logic_error(
        "realization_jacobian: the added-mass medium (alpha > 0) has no AD Jacobian");
  }
  const int n = model.dof();
  model.evaluate_dual(x, modes, work);
  const int directions = 2 * n + 1;
  Eigen::Matrix<Dual, Eigen::Dynamic, 1> v(n);
  for (int i = 0; i < n; ++i) v(i) = Dual(x.v(i), Eigen::VectorXd::Unit(directions, n + i));
  const auto a = acceleration<Dual>(work, v, in_medium, pushing, medium, nullptr);
  jac.setZero(2 * n, 2 * n);
  dfdt.setZero(2 * n);
  for (int i = 0; i < n; ++i) {
    jac(i, n + i) = 1.0;
    for (int j = 0; j < 2 * n; ++j) jac(n + i, j) = a(i).derivatives()(j);
    dfdt(n + i) = a(i).derivatives()(2 * n);
  }
}

}  // namespace crbench
