// Dynamics derived from a case by forward-mode automatic differentiation (Eigen's
// AutoDiffScalar, nested for the second derivative in d), and the constrained acceleration with
// its multipliers λ for a given active set (docs/theory.md §1).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <limits>
#include <stdexcept>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/solvers/outcome.hpp"

namespace crbench {

// m.resize(…) only where the size differs: Eigen's resize is a call even when nothing changes,
// and the hot loops size the same small buffers at every evaluation.
template <class Vector>
inline void size_to(Vector& v, Eigen::Index size) {
  if (v.size() != size) v.resize(size);
}
template <class Matrix>
inline void size_to(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
}

// The case's CaseInfo with the counts the registry derives (the kinematic rows).
template <Case C>
CaseInfo case_info() {
  CaseInfo info = C::info();
  info.kinematic = crbench::kinematic_count<C>();
  info.unilateral_kinematic = crbench::unilateral_kinematic_count<C>();
  info.bilateral = crbench::bilateral_count<C>();
  info.constraints += info.bilateral;
  return info;
}

// Wraps a `Case` into a `Model`. The case's templated functions are instantiated at double and
// at AutoDiffScalar types with fixed-size derivative vectors (no allocation per evaluation).
template <Case C>
class CaseModel final : public Model {
  static constexpr int n = C::n;
  // The unilateral rows, then the bilateral ones.
  static constexpr int m = C::m + crbench::bilateral_count<C>();
  static constexpr int kk = crbench::kinematic_count<C>();
  using Vn = Vec<double, n>;

 public:
  explicit CaseModel(const ParamValues& params)
      : case_(params), info_(case_info<C>()), params_(params) {}

  const CaseInfo& info() const override { return info_; }
  const ParamValues& params() const override { return params_; }

  void evaluate(const State& x, Modes modes, Point& out) const override {
    const Terms<double> terms = point_terms<double>(Vn(x.q), Vn(x.v), x.t, modes);
    // Element-wise copies: GCC 12 reports a false -Warray-bounds on Eigen's vectorized copy of
    // 1×1 fixed-size matrices.
    copy_terms(terms, out, [](double value, double& to) { to = value; });
  }

  void evaluate_dual(const State& x, Modes modes, PointT<Dual>& out) const override {
    // One outer forward pass over (q, q̇, t) with fixed-size derivative vectors, converted to the
    // dynamic Dual of the interface at the end.
    constexpr int k = 2 * n + 1;
    if constexpr (n > kMaxDualDof) {
      throw std::runtime_error("evaluate_dual: " + info_.name + " has " + std::to_string(n) +
                               " degrees of freedom; derivatives are kept for at most " +
                               std::to_string(kMaxDualDof));
    } else {
      using Dz = Eigen::AutoDiffScalar<Vec<double, k>>;
      Vec<Dz, n> q, v;
      for (int i = 0; i < n; ++i) {
        q(i) = Dz(x.q(i), k, i);
        v(i) = Dz(x.v(i), k, n + i);
      }
      Terms<Dz> terms = point_terms<Dz, false>(q, v, Dz(x.t, k, 2 * n), modes);
      // The derivatives of d are third derivatives of f, one nesting level deeper than Eigen's
      // AutoDiffScalar takes with plain double constants in case code: d keeps its value and gets
      // NaN derivatives, so that a Jacobian built through d is visibly wrong, never silently so.
      const Vec<double, m> d = direction_second_derivative<double>(Vn(x.q), Vn(x.v), x.t);
      for (int r = 0; r < m; ++r) {
        terms.d(r) = Dz(d(r), Vec<double, k>::Constant(std::numeric_limits<double>::quiet_NaN()));
      }
      copy_terms(terms, out, [](const Dz& value, Dual& to) {
        // In place: a Dual built and then copied would move its inline storage twice.
        to.value() = value.value();
        to.derivatives() = value.derivatives();
      });
    }
  }

  using Model::constraint_values;
  using Model::free_force;
  using Model::switching_values;

  void free_force(const State& x, Modes modes, Eigen::VectorXd& out) const override {
    const Vn q = x.q;
    const Vn v = x.v;
    const Vn F = case_.template force<double>(q, v, x.t, modes) -
                 potential_gradient<double>(q, x.t) - kinetic_terms<double>(q, v).c;
    out.resize(n);
    for (int i = 0; i < n; ++i) out(i) = F(i);
  }

  void force_jacobians(const State& x, Modes modes, Eigen::MatrixXd& dF_dq,
                       Eigen::MatrixXd& dF_dv) const override {
    // F = Q − ∂V/∂q − c differentiated over (q, q̇) by an outer forward pass; ∂V/∂q and ∂A/∂q
    // inside F come from inner passes (nested AD).
    using Dqv = Eigen::AutoDiffScalar<Vec<double, 2 * n>>;
    Vec<Dqv, n> q_ad, v_ad;
    for (int i = 0; i < n; ++i) {
      q_ad(i) = Dqv(x.q(i), 2 * n, i);
      v_ad(i) = Dqv(x.v(i), 2 * n, n + i);
    }
    const Dqv t_ad(x.t);
    const Vec<Dqv, n> F = case_.template force<Dqv>(q_ad, v_ad, t_ad, modes) -
                          potential_gradient<Dqv>(q_ad, t_ad) - kinetic_terms<Dqv>(q_ad, v_ad).c;
    dF_dq.resize(n, n);
    dF_dv.resize(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        dF_dq(i, j) = F(i).derivatives()(j);
        dF_dv(i, j) = F(i).derivatives()(n + j);
      }
    }
  }

  void constraint_values(double t, const Eigen::VectorXd& q, Eigen::VectorXd& out) const override {
    const Vec<double, m> f = all_constraints<double>(Vn(q), t);
    out.resize(m);
    for (int k = 0; k < m; ++k) out(k) = f(k);
  }
  void kinematic_affine(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& a,
                        Eigen::VectorXd& b) const override {
    a.resize(kk, n);
    b.setZero(kk);
    if constexpr (kk > 0) {
      a = case_.template kinematic_rows<double>(Vn(q), t);
      if constexpr (requires { case_.template kinematic_offset<double>(Vn(q), t); }) {
        b = case_.template kinematic_offset<double>(Vn(q), t);
      }
    }
  }
  void switching_values(const State& x, Eigen::VectorXd& out) const override {
    const auto s = case_.switching(Vn(x.q), Vn(x.v), x.t);
    out.resize(s.size());
    for (Eigen::Index j = 0; j < s.size(); ++j) out(j) = s(j);
  }
  Eigen::MatrixXd metric(const Eigen::VectorXd& q) const override {
    return case_.template metric<double>(Vn(q));
  }
  double potential(double t, const Eigen::VectorXd& q) const override {
    return case_.template potential<double>(Vn(q), t);
  }
  Eigen::VectorXd force(const State& x, Modes modes) const override {
    return case_.template force<double>(Vn(x.q), Vn(x.v), x.t, modes);
  }
  double slip_restitution(int r) const override {
    if constexpr (requires { case_.slip_restitution(r); }) {
      return case_.slip_restitution(r);
    } else {
      return 0.0;
    }
  }
  double friction_coefficient(int r) const override {
    if constexpr (requires { case_.friction_coefficient(r); }) {
      return case_.friction_coefficient(r);
    } else {
      return std::numeric_limits<double>::infinity();
    }
  }
  ContactLaw contact_law(int k) const override {
    if constexpr (requires { case_.contact_law(k); }) {
      return case_.contact_law(k);
    } else {
      return {};
    }
  }
  State initial_state() const override { return case_.initial_state(); }
  double horizon() const override { return case_.horizon(); }
  Facts facts() const override { return case_.facts(); }

 private:
  template <class S>
  struct Terms {
    Mat<S, n, n> A;
    Vec<S, n> c, grad_V, Q;
    Vec<S, m> f, f_t, d;
    Mat<S, m, n> J;
    Mat<S, kk, n> a, curl;
    Vec<S, kk> g, g_rate;
  };

  template <class S, bool with_d = true>
  Terms<S> point_terms(const Vec<S, n>& q, const Vec<S, n>& v, const S& t, Modes modes) const {
    Terms<S> out;
    const Kinetic<S> kinetic = kinetic_terms<S>(q, v);
    out.A = kinetic.A;
    out.c = kinetic.c;
    out.grad_V = potential_gradient<S>(q, t);
    out.Q = case_.template force<S>(q, v, t, modes);

    // f, J = ∂f/∂q and ∂f/∂t from one inner pass over z = (q, t).
    using Dz = Eigen::AutoDiffScalar<Vec<S, n + 1>>;
    Vec<Dz, n> qz;
    for (int i = 0; i < n; ++i) qz(i) = Dz(q(i), Vec<S, n + 1>::Unit(i));
    const Vec<Dz, m> f_ad = all_constraints<Dz>(qz, Dz(t, Vec<S, n + 1>::Unit(n)));
    for (int r = 0; r < m; ++r) {
      out.f(r) = f_ad(r).value();
      for (int i = 0; i < n; ++i) out.J(r, i) = f_ad(r).derivatives()(i);
      out.f_t(r) = f_ad(r).derivatives()(n);
    }

    if constexpr (with_d) out.d = direction_second_derivative<S>(q, v, t);
    if constexpr (kk > 0) kinematic_terms<S, Dz>(q, v, t, qz, out);
    return out;
  }

  // a, g = a q̇ + b, ġ − a q̈ and the curl Ω from one inner pass over z = (q, t)
  // (Kozlov 1992 §2–3; docs/theory.md §2). Ω is what the added mass αN g²/2 contributes besides
  // its ġ aᵀ term: ∂(αN g²/2)/∂q − αN g ȧᵀ = αN g Ω.
  template <class S, class Dz>
  void kinematic_terms(const Vec<S, n>& /*q*/, const Vec<S, n>& v, const S& t, const Vec<Dz, n>& qz,
                       Terms<S>& out) const {
    const Dz tz(t, Vec<S, n + 1>::Unit(n));
    const Mat<Dz, kk, n> a_ad = case_.template kinematic_rows<Dz>(qz, tz);
    Vec<Dz, kk> b_ad = Vec<Dz, kk>::Constant(Dz(S(0.0), Vec<S, n + 1>::Zero()));
    if constexpr (requires { case_.template kinematic_offset<Dz>(qz, tz); }) {
      b_ad = case_.template kinematic_offset<Dz>(qz, tz);
    }
    for (int r = 0; r < kk; ++r) {
      out.g(r) = b_ad(r).value();
      out.g_rate(r) = b_ad(r).derivatives()(n);
      for (int i = 0; i < n; ++i) out.g_rate(r) += b_ad(r).derivatives()(i) * v(i);
      for (int k = 0; k < n; ++k) {
        out.a(r, k) = a_ad(r, k).value();
        out.g(r) += out.a(r, k) * v(k);
        S rate = a_ad(r, k).derivatives()(n);  // ∂a_rk/∂t
        for (int i = 0; i < n; ++i) rate += a_ad(r, k).derivatives()(i) * v(i);
        out.g_rate(r) += rate * v(k);
      }
      for (int i = 0; i < n; ++i) {
        // ∂b_r/∂q_i − ∂a_ri/∂t, then Σ_k (∂a_rk/∂q_i − ∂a_ri/∂q_k) q̇_k.
        out.curl(r, i) = b_ad(r).derivatives()(i) - a_ad(r, i).derivatives()(n);
        for (int k = 0; k < n; ++k) {
          out.curl(r, i) += (a_ad(r, k).derivatives()(i) - a_ad(r, i).derivatives()(k)) * v(k);
        }
      }
    }
  }

  template <class S>
  Vec<S, m> all_constraints(const Vec<S, n>& q, const S& t) const {
    if constexpr (crbench::bilateral_count<C>() == 0) {
      return case_.template constraints<S>(q, t);
    } else {
      Vec<S, m> f;
      f << case_.template constraints<S>(q, t), case_.template bilateral_constraints<S>(q, t);
      return f;
    }
  }

  // d = d²/ds² f(q + s q̇, t + s) at s = 0 = żᵀ ∇²f ż, by nested forward mode along ż.
  template <class S>
  Vec<S, m> direction_second_derivative(const Vec<S, n>& q, const Vec<S, n>& v, const S& t) const {
    Vec<S, m> d;
    using D1 = Eigen::AutoDiffScalar<Vec<S, 1>>;
    using D2 = Eigen::AutoDiffScalar<Vec<D1, 1>>;
    const auto along = [](const S& value, const S& rate) {
      return D2(D1(value, Vec<S, 1>(rate)), Vec<D1, 1>(D1(rate, Vec<S, 1>(S(0.0)))));
    };
    Vec<D2, n> qs;
    for (int i = 0; i < n; ++i) qs(i) = along(q(i), v(i));
    const Vec<D2, m> f_s = all_constraints<D2>(qs, along(t, S(1.0)));
    for (int r = 0; r < m; ++r) d(r) = f_s(r).derivatives()(0).derivatives()(0);
    return d;
  }

  template <class S, class T, class Convert>
  static void copy_terms(const Terms<S>& in, PointT<T>& out, Convert convert) {
    size_to(out.A, n, n);
    size_to(out.J, m, n);
    size_to(out.c, n);
    size_to(out.grad_V, n);
    size_to(out.Q, n);
    size_to(out.f, m);
    size_to(out.f_t, m);
    size_to(out.d, m);
    size_to(out.a, kk, n);
    size_to(out.curl, kk, n);
    size_to(out.g, kk);
    size_to(out.g_rate, kk);
    for (int r = 0; r < kk; ++r) {
      for (int i = 0; i < n; ++i) {
        convert(in.a(r, i), out.a(r, i));
        convert(in.curl(r, i), out.curl(r, i));
      }
      convert(in.g(r), out.g(r));
      convert(in.g_rate(r), out.g_rate(r));
    }
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) convert(in.A(i, j), out.A(i, j));
      convert(in.c(i), out.c(i));
      convert(in.grad_V(i), out.grad_V(i));
      convert(in.Q(i), out.Q(i));
    }
    for (int r = 0; r < m; ++r) {
      for (int i = 0; i < n; ++i) convert(in.J(r, i), out.J(r, i));
      convert(in.f(r), out.f(r));
      convert(in.f_t(r), out.f_t(r));
      convert(in.d(r), out.d(r));
    }
  }

  template <class S>
  struct Kinetic {
    Mat<S, n, n> A;
    Vec<S, n> c;
  };

  // A(q) and the Coriolis/centrifugal terms c = Ȧ q̇ − ½ ∂(q̇ᵀ A q̇)/∂q of Lagrange's equations
  // for T = ½ q̇ᵀ A q̇ (Deryabin & Kozlov 1995 (1.1), (1.9)), with ∂A/∂q from one inner forward pass.
  // With a constant metric (cases/case.hpp) c = 0: the same bits as the sums below, whose terms
  // are then all ±0 (0 + (−0) = 0).
  template <class S>
  Kinetic<S> kinetic_terms(const Vec<S, n>& q, const Vec<S, n>& v) const {
    if constexpr (has_constant_metric<C>()) {
      return {case_.template metric<S>(q), Vec<S, n>::Constant(S(0.0))};
    } else {
      return coriolis_terms<S>(q, v);
    }
  }

  template <class S>
  Kinetic<S> coriolis_terms(const Vec<S, n>& q, const Vec<S, n>& v) const {
    using D = Eigen::AutoDiffScalar<Vec<S, n>>;
    Vec<D, n> q_ad;
    for (int i = 0; i < n; ++i) q_ad(i) = D(q(i), Vec<S, n>::Unit(i));
    const Mat<D, n, n> A_ad = case_.template metric<D>(q_ad);
    Kinetic<S> out;
    for (int i = 0; i < n; ++i) {
      out.c(i) = S(0.0);
      for (int j = 0; j < n; ++j) out.A(i, j) = A_ad(i, j).value();
    }
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int k = 0; k < n; ++k) {
          const S vjvk = v(j) * v(k);
          out.c(i) += A_ad(i, j).derivatives()(k) * vjvk;        // (Ȧ q̇)_i
          out.c(i) -= 0.5 * A_ad(j, k).derivatives()(i) * vjvk;  // ½ ∂(q̇ᵀAq̇)/∂q_i
        }
      }
    }
    return out;
  }

  template <class S>
  Vec<S, n> potential_gradient(const Vec<S, n>& q, const S& t) const {
    using D = Eigen::AutoDiffScalar<Vec<S, n>>;
    Vec<D, n> q_ad;
    for (int i = 0; i < n; ++i) q_ad(i) = D(q(i), Vec<S, n>::Unit(i));
    return case_.template potential<D>(q_ad, D(t)).derivatives();
  }

  C case_;
  CaseInfo info_;
  ParamValues params_;
};

// The constrained acceleration for the active set `active` (indices into f):
// A q̈ = Q − ∂V/∂q − c + J_Kᵀλ, J_K q̈ + d_K = 0, i.e. (J_K A⁻¹ J_Kᵀ) λ = −(J_K A⁻¹ F + d_K)
// with F = Q − ∂V/∂q − c (Deryabin & Kozlov 1995 (1.4); Kugushev & Sorokina 2002, Lagrange
// equations of the first kind).
struct ConstrainedAcceleration {
  Eigen::VectorXd qdd;
  Eigen::VectorXd lambda;  // one per active constraint, in the order of `active`
  Eigen::VectorXd mu;      // μ = λ·|∇f|_{A⁻¹}, the normal reaction in the kinetic metric
  // The multipliers ν of the kinematic constraints (reaction aᵀν), when the case has them.
  Eigen::VectorXd kinematic_lambda;
  bool ok = true;
  // Set when !ok: singular_active_set (singular or ill-conditioned), or non_finite (the case
  // gave a NaN or an infinity).
  Status status = Status::ok;
  std::string reason;
  double rcond = 1.0;  // reciprocal condition estimate of J_K A⁻¹ J_Kᵀ
};

// Reciprocal condition number below which an active set is reported as ill-conditioned.
inline constexpr double kActiveSetMinRcond = 1e-12;

// A reciprocal condition estimate of a symmetric positive semidefinite matrix from its LDLT:
// the smaller of Eigen's estimate and the pivot ratio min D / max D. Eigen's rcond() alone is
// wrong when a pivot is exactly zero (it returns 2/3 for [[1, 2], [2, 4]]).
double reciprocal_condition(const Eigen::LDLT<Eigen::MatrixXd>& ldlt);

ConstrainedAcceleration constrained_acceleration(const Point& p, const std::vector<int>& active);

// The buffers of constrained_acceleration, sized at the first call: later calls with the same n
// and active-set size allocate nothing, unless the case has kinematic constraints or the call
// fails (the event-driven and limit solvers' right-hand side and event functions).
struct AccelerationWorkspace {
  Eigen::LDLT<Eigen::MatrixXd> A_ldlt, W_ldlt;
  Eigen::MatrixXd Jk, Ainv_Jt, W;
  Eigen::VectorXd F, Ainv_F, dk, b, reaction;
  // The factorizations are reused while what they depend on is bitwise the same as at the last
  // call (a constant metric, constant constraint gradients: most cases), so the result is the
  // one a new factorization would give: A's LDLT and its condition estimate while A is
  // unchanged; W = J_K A⁻¹ J_Kᵀ, its LDLT and estimate, and A⁻¹J_Kᵀ while A and J_K are.
  Eigen::MatrixXd factored_A, factored_Jk;
  // √W_rr, for μ = λ·|∇f|_{A⁻¹}: computed with W, as W is.
  Eigen::VectorXd W_diagonal_root;
  bool A_factored = false, W_factored = false;
  // A diagonal A or W (a unit or diagonal metric; one active row, or rows that do not share a
  // coordinate) is solved by dividing by its diagonal: what its LDLT's solve gives bit for bit
  // (L = I, and D is the diagonal, pseudo-inverted below the smallest normal number alike).
  bool A_diagonal = false, W_diagonal = false;
  double rcond_A = 0.0, rcond_W = 0.0;
  // The condition estimate's vectors, one set per size (A: n, W: the active rows), so that no
  // buffer changes size between calls.
  struct Estimate {
    Eigen::VectorXd v, sign, old_sign;
  } estimate_A, estimate_W;
};
void constrained_acceleration(const Point& p, const std::vector<int>& active,
                              AccelerationWorkspace& w, ConstrainedAcceleration& out);
// The multipliers alone: lambda, mu, kinematic_lambda, ok, status, reason and rcond as
// constrained_acceleration gives them, bit for bit, without q̈ (out.qdd is left as it was): what
// event functions and the quadrature of ∫λ dt need.
void constrained_multipliers(const Point& p, const std::vector<int>& active,
                             AccelerationWorkspace& w, ConstrainedAcceleration& out);

// The round-off of f_k at x, the point p evaluated there: f computed from coordinates of order
// |q| is known to about ε (|∂f/∂q|·|q| + |∂f/∂t|·|t| + |f|). Zero for a gap coordinate at its
// surface (f = q_i = 0): such an f carries no round-off of a difference of O(1) terms.
double constraint_round_off(const Point& p, const State& x, int k);
// f_k at x is within its round-off of 0 or below: the constraint touches.
inline bool touches(const Point& p, const State& x, int k) {
  return p.f(k) <= constraint_round_off(p, x, k);
}

// Keeps only the kinematic rows in `rows` (sorted) of a point: the one-sided kinematic
// constraints that are not active carry no reaction.
void keep_kinematic_rows(Point& p, const std::vector<int>& rows);

// The Delassus matrix W = J_K A⁻¹ J_Kᵀ and A⁻¹ J_Kᵀ for the rows in `rows`; with kinematic
// constraints A⁻¹ is restricted to the velocities that keep them (see dynamics.cpp).
struct Delassus {
  Eigen::MatrixXd W;
  Eigen::MatrixXd Ainv_Jt;
};
Delassus delassus(const Point& p, const std::vector<int>& rows);
// The same for explicit rows G (k×n) in place of the rows of J.
Delassus delassus_of_rows(const Point& p, const Eigen::MatrixXd& G);

}  // namespace crbench
