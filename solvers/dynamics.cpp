#include "crbench/solvers/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "crbench/solvers/dense_stepper.hpp"

namespace crbench {

double constraint_round_off(const Point& p, const State& x, int k) {
  return std::numeric_limits<double>::epsilon() *
         (p.J.row(k).cwiseAbs().dot(x.q.cwiseAbs()) + std::abs(p.f_t(k)) * std::abs(x.t) +
          std::abs(p.f(k)));
}

double reciprocal_condition(const Eigen::LDLT<Eigen::MatrixXd>& ldlt) {
  if (ldlt.info() != Eigen::Success || ldlt.rows() == 0) return ldlt.rows() == 0 ? 1.0 : 0.0;
  const Eigen::VectorXd D = ldlt.vectorD();
  const double largest = D.cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || D.minCoeff() <= 0.0) return 0.0;
  return std::min(ldlt.rcond(), D.minCoeff() / largest);
}

namespace {

// Eigen's LDLT::rcond() (Eigen/src/Core/ConditionEstimator.h: rcond_estimate_helper and
// rcond_invmatrix_L1_norm_estimate, Higham's estimate of ‖M⁻¹‖₁) computed step for step in the
// workspace's vectors, so that it gives the same number without allocating. `l1_norm` is ‖M‖₁.
double ldlt_rcond(const Eigen::LDLT<Eigen::MatrixXd>& dec, double l1_norm,
                  AccelerationWorkspace::Estimate& w) {
  const Eigen::Index n = dec.rows();
  if (n == 0) return std::numeric_limits<double>::infinity();
  if (l1_norm == 0.0) return 0.0;
  if (n == 1) return 1.0;
  Eigen::VectorXd& v = w.v;
  Eigen::VectorXd& sign = w.sign;
  Eigen::VectorXd& old_sign = w.old_sign;
  v.setConstant(n, 1.0 / static_cast<double>(n));
  dec.solveInPlace(v);
  double lower_bound = v.lpNorm<1>();
  double old_lower_bound = lower_bound;
  sign.resize(n);
  old_sign.resize(n);
  Eigen::Index max_index = -1;
  Eigen::Index old_max_index = max_index;
  for (int k = 0; k < 4; ++k) {
    for (Eigen::Index i = 0; i < n; ++i) sign(i) = v(i) < 0.0 ? -1.0 : 1.0;
    if (k > 0 && sign == old_sign) break;
    v = sign;
    dec.solveInPlace(v);  // the adjoint's solve: M is self-adjoint
    v.cwiseAbs().maxCoeff(&max_index);
    if (max_index == old_max_index) break;
    v.setZero();
    v(max_index) = 1.0;
    dec.solveInPlace(v);
    lower_bound = v.lpNorm<1>();
    if (lower_bound <= old_lower_bound) break;
    old_sign = sign;
    old_max_index = max_index;
    old_lower_bound = lower_bound;
  }
  double alternating_sign = 1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    v(i) = alternating_sign * (1.0 + static_cast<double>(i) / static_cast<double>(n - 1));
    alternating_sign = -alternating_sign;
  }
  dec.solveInPlace(v);
  const double alternate_lower_bound = (2.0 * v.lpNorm<1>()) / (3.0 * static_cast<double>(n));
  const double inverse_norm = std::max(lower_bound, alternate_lower_bound);
  return inverse_norm == 0.0 ? 0.0 : (1.0 / inverse_norm) / l1_norm;
}

// ‖M‖₁ of a symmetric M as LDLT computes it from the lower triangle.
double symmetric_l1_norm(const Eigen::MatrixXd& m) {
  double norm = 0.0;
  const Eigen::Index size = m.rows();
  for (Eigen::Index col = 0; col < size; ++col) {
    const double sum = m.col(col).tail(size - col).lpNorm<1>() + m.row(col).head(col).lpNorm<1>();
    if (sum > norm) norm = sum;
  }
  return norm;
}

// reciprocal_condition(ldlt) of the LDLT of m, without allocation.
double reciprocal_condition_in(const Eigen::LDLT<Eigen::MatrixXd>& ldlt, const Eigen::MatrixXd& m,
                               AccelerationWorkspace::Estimate& w) {
  if (ldlt.info() != Eigen::Success || ldlt.rows() == 0) return ldlt.rows() == 0 ? 1.0 : 0.0;
  const auto D = ldlt.vectorD();
  const double largest = D.cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || D.minCoeff() <= 0.0) return 0.0;
  return std::min(ldlt_rcond(ldlt, symmetric_l1_norm(m), w), D.minCoeff() / largest);
}

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
    // Dependent rows (two no-slip rows that coincide) leave no projection: the run ends with a
    // status instead of multiplying by an empty one.
    if (!km.ok) throw RunFailure{Status::singular_active_set, km.reason};
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
  out.status = Status::singular_active_set;
  if (!p.A.allFinite() || !p.f.allFinite() || !p.J.allFinite() || !p.d.allFinite() ||
      !p.free_force().allFinite()) {
    out.status = Status::non_finite;
    out.reason = "the case gives a non-finite metric, constraint value, gradient or force";
  } else {
    out.reason = std::move(reason);
  }
  return out;
}

}  // namespace

ConstrainedAcceleration constrained_acceleration(const Point& p, const std::vector<int>& active) {
  AccelerationWorkspace w;
  ConstrainedAcceleration out;
  constrained_acceleration(p, active, w, out);
  return out;
}

namespace {

// Every entry exactly equal (a NaN never equals itself): a plain loop, as Eigen's == on
// dynamic-size matrices costs more than the few entries it compares here.
bool same_entries(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  const double* x = a.data();
  const double* y = b.data();
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (!(x[i] == y[i])) return false;
  }
  return true;
}

bool is_diagonal(const Eigen::MatrixXd& M) {
  for (Eigen::Index j = 0; j < M.cols(); ++j) {
    for (Eigen::Index i = 0; i < M.rows(); ++i) {
      if (i != j && M(i, j) != 0.0) return false;
    }
  }
  return true;
}

// x ← M⁻¹ x by M's LDLT, or for a diagonal M by division as that LDLT's solve divides by D
// (Eigen's pseudo-inverse: rows with |D_i| not above the smallest normal number become 0).
template <class X>
void solve_in(const Eigen::LDLT<Eigen::MatrixXd>& ldlt, const Eigen::MatrixXd& M, bool diagonal,
              X& x) {
  if (!diagonal) {
    ldlt.solveInPlace(x);
    return;
  }
  const Eigen::Index n = M.rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double d = M(i, i);
    // x / 1 is x, bit for bit: a unit mass, or a row of unit gradient, skips its division.
    if (d == 1.0) continue;
    const bool invertible = std::abs(d) > std::numeric_limits<double>::min();
    if constexpr (X::ColsAtCompileTime == 1) {
      double& xi = x.data()[i];
      xi = invertible ? xi / d : 0.0;
    } else if (invertible) {
      x.row(i) /= d;
    } else {
      x.row(i).setZero();
    }
  }
}

// y = M x with the sums Eigen 3.4 forms for a dynamic-size product of fewer than 128 columns:
// each y_i accumulated from 0 over the columns in order (its gemv kernel; the dot product it
// uses for one row gives the same bits, as it differs only in the sign of an all-zero sum, which
// the final 0 + removes). The loops skip Eigen's dispatch, which costs more than the few
// products the solvers' small systems need; wider products are left to Eigen.
void product_into(const Eigen::MatrixXd& M, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  const Eigen::Index rows = M.rows(), cols = M.cols();
  if (cols >= 128) {
    y.noalias() = M * x;
    return;
  }
  size_to(y, rows);
  const double* m = M.data();
  const double* xs = x.data();
  double* ys = y.data();
  for (Eigen::Index i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (Eigen::Index j = 0; j < cols; ++j) sum += m[i + j * rows] * xs[j];
    ys[i] = 0.0 + sum;
  }
}

// y = x for vectors of the same size, without Eigen's resize check and dispatch.
void copy_into(const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  size_to(y, x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) y(i) = x(i);
}

// The rest of constrained_acceleration once w.Ainv_F holds the unconstrained acceleration: the
// active rows' multipliers and, `with_qdd`, the total. `km` is the kinematic constraints' motion,
// or null without them.
void add_contact_reactions(const Point& p, const std::vector<int>& active,
                           const KinematicMotion* km, bool with_qdd, AccelerationWorkspace& w,
                           ConstrainedAcceleration& out) {
  const bool kinematic = km != nullptr;
  if (active.empty()) {
    if (with_qdd) copy_into(w.Ainv_F, out.qdd);
    size_to(out.lambda, 0);
    size_to(out.mu, 0);
    if (kinematic) {
      out.kinematic_lambda = km->nu0;
    } else {
      size_to(out.kinematic_lambda, 0);
    }
    return;
  }
  const Eigen::Index k = static_cast<Eigen::Index>(active.size());
  size_to(w.Jk, k, p.J.cols());
  size_to(w.dk, k);
  for (Eigen::Index r = 0; r < k; ++r) {
    const auto row = static_cast<Eigen::Index>(active[static_cast<std::size_t>(r)]);
    for (Eigen::Index j = 0; j < p.J.cols(); ++j) w.Jk(r, j) = p.J(row, j);
    w.dk(r) = p.d(row);
  }
  // With kinematic rows W depends on a(q) too: factored at every call.
  const bool same_W = !kinematic && w.W_factored && same_entries(w.factored_Jk, w.Jk);
  if (!same_W) {
    w.W_factored = false;
    if (kinematic) {
      w.Ainv_Jt = km->P * w.Jk.transpose();
    } else {
      w.Ainv_Jt = w.Jk.transpose();
      solve_in(w.A_ldlt, w.factored_A, w.A_diagonal, w.Ainv_Jt);
    }
    w.W.noalias() = w.Jk * w.Ainv_Jt;
    w.W_ldlt.compute(w.W);
    w.W_diagonal = is_diagonal(w.W);
    size_to(w.W_diagonal_root, k);
    for (Eigen::Index r = 0; r < k; ++r) w.W_diagonal_root(r) = std::sqrt(w.W(r, r));
    w.rcond_W = reciprocal_condition_in(w.W_ldlt, w.W, w.estimate_W);
    if (!kinematic) {
      w.factored_Jk = w.Jk;
      w.W_factored = true;
    }
  }
  out.rcond = w.rcond_W;
  if (!(out.rcond >= kActiveSetMinRcond)) {
    std::ostringstream why;
    why << "active set {";
    for (std::size_t i = 0; i < active.size(); ++i) why << (i ? "," : "") << active[i];
    why << "} is singular or ill-conditioned: rcond(J A^-1 J^T) = " << out.rcond;
    const double rcond = out.rcond;
    out = failed(p, why.str());
    out.rcond = rcond;
    return;
  }
  product_into(w.Jk, w.Ainv_F, w.b);
  for (Eigen::Index r = 0; r < k; ++r) w.b(r) = -(w.b(r) + w.dk(r));
  solve_in(w.W_ldlt, w.W, w.W_diagonal, w.b);
  copy_into(w.b, out.lambda);
  if (with_qdd) {
    product_into(w.Ainv_Jt, out.lambda, w.reaction);  // summed apart, then added: the same bits
    size_to(out.qdd, w.Ainv_F.size());
    for (Eigen::Index i = 0; i < w.Ainv_F.size(); ++i) out.qdd(i) = w.Ainv_F(i) + w.reaction(i);
  }
  size_to(out.mu, k);
  for (Eigen::Index r = 0; r < k; ++r) out.mu(r) = out.lambda(r) * w.W_diagonal_root(r);
  if (kinematic) {
    out.kinematic_lambda = km->nu0 - km->Sinv_a_Ainv * (w.Jk.transpose() * out.lambda);
  } else {
    size_to(out.kinematic_lambda, 0);
  }
}

// constrained_acceleration, or with `with_qdd` false constrained_multipliers.
void constrained_solution(const Point& p, const std::vector<int>& active, bool with_qdd,
                          AccelerationWorkspace& w, ConstrainedAcceleration& out) {
  out.ok = true;
  out.rcond = 1.0;
  // A NaN never equals itself: such an A is factored again (and fails there).
  const bool same_A = w.A_factored && same_entries(w.factored_A, p.A);
  if (!same_A) {
    w.A_factored = false;
    w.W_factored = false;
    w.A_ldlt.compute(p.A);
    w.rcond_A = reciprocal_condition_in(w.A_ldlt, p.A, w.estimate_A);
    w.factored_A = p.A;
    w.A_diagonal = is_diagonal(p.A);
    w.A_factored = true;
  }
  if (!(w.rcond_A >= 1e-14)) {
    out = failed(p, "kinetic metric A(q) is not positive definite");
    return;
  }
  const Eigen::Index n = p.Q.size();
  size_to(w.F, n);
  for (Eigen::Index i = 0; i < n; ++i) w.F(i) = p.Q(i) - p.grad_V(i) - p.c(i);
  if (p.a.rows() == 0) {
    copy_into(w.F, w.Ainv_F);
    solve_in(w.A_ldlt, w.factored_A, w.A_diagonal, w.Ainv_F);
    add_contact_reactions(p, active, nullptr, with_qdd, w, out);
    return;
  }
  const KinematicMotion km = kinematic_motion(p, w.A_ldlt, w.F);
  if (!km.ok) {
    out = failed(p, km.reason);
    return;
  }
  w.Ainv_F = km.qdd0;
  add_contact_reactions(p, active, &km, with_qdd, w, out);
}

}  // namespace

void constrained_acceleration(const Point& p, const std::vector<int>& active,
                              AccelerationWorkspace& w, ConstrainedAcceleration& out) {
  constrained_solution(p, active, true, w, out);
}

void constrained_multipliers(const Point& p, const std::vector<int>& active,
                             AccelerationWorkspace& w, ConstrainedAcceleration& out) {
  constrained_solution(p, active, false, w, out);
}

}  // namespace crbench
