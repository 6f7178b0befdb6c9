// The equations of motion of the (α,β,γ)N realization (Deryabin & Kozlov 1995 (1.8)) as functions
// of a point, written once for double and for Dual so that the stiff integrator gets its Jacobian
// by AD.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/solvers/small_lu.hpp"
#include "crbench/solvers/velocity_chart.hpp"

namespace crbench {

struct Medium {
  double mass;       // αN
  double damping;    // βN
  double stiffness;  // γN
  bool obstacle;     // the reaction acts only while it pushes
  // The law of each unilateral constraint (Model::contact_law); empty where every one is linear
  // with unit scale.
  std::vector<ContactLaw> laws = {};

  double scale(Eigen::Index k) const {
    return laws.empty() ? 1.0 : laws[static_cast<std::size_t>(k)].scale;
  }
  // N(β ḟ + γ f) of constraint k, or N·s(β ḟ − γ(−f)^η) under its law: minus the reaction the
  // medium puts on it without the added mass. Past f = 0 (the steps that overshoot an exit) the
  // power law goes on as γ sign(f)|f|^η, continuous with its derivative for η ≥ 1.
  template <class S>
  S normal(Eigen::Index k, const S& rate, const S& f) const {
    if (laws.empty()) return damping * rate + stiffness * f;
    const ContactLaw& law = laws[static_cast<std::size_t>(k)];
    if (law.exponent == 1.0) return law.scale * (damping * rate + stiffness * f);
    using std::abs;
    using std::pow;
    const S depth = pow(abs(f), law.exponent);
    return law.scale * (damping * rate + stiffness * (f < 0.0 ? S(-depth) : depth));
  }
  // ∂normal/∂f over the scale: γN for the linear law, γN η|f|^(η−1) for the power law.
  double stiffness_slope(Eigen::Index k, double f) const {
    if (laws.empty()) return stiffness;
    const double eta = laws[static_cast<std::size_t>(k)].exponent;
    return eta == 1.0 ? stiffness : stiffness * eta * std::pow(std::abs(f), eta - 1.0);
  }
};

// The force of the medium's viscosity and stiffness on the pushing constraints,
// −Σ J_kᵀ N(β ḟ_k + γ f_k) (Deryabin & Kozlov 1995 (1.8) without the added mass; in the velocity
// chart it enters F beside the kinematic rows, α = 0 there), added to `force` (no allocation: the
// DOP853 phases call it 16 times per step).
template <class S, class Force>
void add_medium_force(const PointT<S>& p, const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                      const std::vector<char>& pushing, const Medium& k, Force& force) {
  if (pushing.empty()) return;
  for (Eigen::Index i = 0; i < p.f.size(); ++i) {
    if (!pushing[static_cast<std::size_t>(i)]) continue;
    const S rate = p.J.row(i).dot(v) + p.f_t(i);
    force -= p.J.row(i).transpose() * k.normal<S>(i, rate, p.f(i));
  }
}

template <class S>
Eigen::Matrix<S, Eigen::Dynamic, 1> medium_force(const PointT<S>& p,
                                                 const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                                                 const std::vector<char>& pushing,
                                                 const Medium& k) {
  Eigen::Matrix<S, Eigen::Dynamic, 1> force = Eigen::Matrix<S, Eigen::Dynamic, 1>::Zero(v.size());
  add_medium_force<S>(p, v, pushing, k, force);
  return force;
}

// The buffers of acceleration(), sized at the first call: later calls at the same n and m
// allocate nothing (the right-hand side of the stiff phases and its Jacobian, several per step).
template <class S>
struct AccelerationWork {
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  Matrix M;
  Vector r, medium, rate, normal, solve_work;
  Eigen::PartialPivLU<Matrix> lu;
  // The held ideal constraints' rows, M⁻¹J_Hᵀ, their Delassus matrix and multipliers.
  Matrix held_J, held_X, held_S;
  Vector held_rhs, held_lambda;
};

// q̈ with the ideal constraints `held` (the ones the model leaves ideal, in contact) enforced:
// M q̈ = r + J_Hᵀλ_H with f̈_H = J_H q̈ + d_H = 0, so λ_H = −(J_H M⁻¹J_Hᵀ)⁻¹(J_H M⁻¹r + d_H)
// (Deryabin & Kozlov 1995 (1.4) with the medium's force in r and its added mass in M). w.lu holds
// M's factors.
template <class S>
void held_acceleration(const PointT<S>& p, const std::vector<int>& held, AccelerationWork<S>& w,
                       Eigen::Matrix<S, Eigen::Dynamic, 1>& qdd) {
  const auto h = static_cast<Eigen::Index>(held.size());
  w.held_J.resize(h, p.J.cols());
  for (Eigen::Index r = 0; r < h; ++r) w.held_J.row(r) = p.J.row(held[static_cast<std::size_t>(r)]);
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  w.held_X = w.lu.solve(Matrix(w.held_J.transpose()));
  qdd = w.lu.solve(w.r);
  w.held_S = w.held_J * w.held_X;
  w.held_rhs.resize(h);
  for (Eigen::Index r = 0; r < h; ++r) {
    w.held_rhs(r) = -(w.held_J.row(r).dot(qdd) + p.d(held[static_cast<std::size_t>(r)]));
  }
  w.held_lambda = w.held_S.partialPivLu().solve(w.held_rhs);
  qdd += w.held_X * w.held_lambda;
}

// q̈ and the multipliers λ_k of the pushing constraints, written once for double and Dual.
// `would_be` receives, for every constraint in the medium, −(α f̈ + β ḟ + γ f)N evaluated with
// this q̈: λ_k for a pushing constraint, and for a released one the sign its reaction would have;
// for a held ideal constraint its multiplier.
template <class S>
void acceleration(const PointT<S>& p, const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                  const std::vector<char>& in_medium, const std::vector<char>& pushing,
                  const Medium& k, AccelerationWork<S>& w, Eigen::Matrix<S, Eigen::Dynamic, 1>& qdd,
                  Eigen::Matrix<S, Eigen::Dynamic, 1>* would_be,
                  const std::vector<int>* held = nullptr) {
  const Eigen::Index m = p.f.size();
  w.M = p.A;
  // F and the medium's force summed apart, then added: the order of the sums fixes the last bit.
  w.medium.setZero(v.size());
  add_medium_force<S>(p, v, pushing, k, w.medium);
  w.r = p.Q - p.grad_V - p.c;
  w.r += w.medium;
  w.rate.noalias() = p.J * v;
  w.rate += p.f_t;
  // d enters only through the added mass; skipping it at α = 0 keeps Jacobians free of d's
  // derivatives, which Model::evaluate_dual does not provide.
  if (k.mass != 0.0) {
    for (Eigen::Index i = 0; i < m; ++i) {
      if (!pushing[static_cast<std::size_t>(i)]) continue;
      w.normal = p.J.row(i).transpose();
      const double mass = k.mass * k.scale(i);
      w.M.noalias() += (mass * w.normal) * w.normal.transpose();
      w.r -= w.normal * (mass * p.d(i));
    }
  }
  w.lu.compute(w.M);
  if (held != nullptr && !held->empty()) {
    held_acceleration<S>(p, *held, w, qdd);
  } else if constexpr (std::is_same_v<S, double>) {
    solve_small_lu(w.lu, w.r, w.solve_work);
    qdd = w.r;
  } else {
    qdd = w.lu.solve(w.r);
  }
  if (would_be != nullptr) {
    would_be->setZero(m);
    for (Eigen::Index i = 0; i < m; ++i) {
      if (!in_medium[static_cast<std::size_t>(i)]) continue;
      S normal = k.normal<S>(i, w.rate(i), p.f(i));
      if (k.mass != 0.0) normal += k.mass * k.scale(i) * (p.J.row(i).dot(qdd) + p.d(i));
      (*would_be)(i) = -normal;
    }
    if (held != nullptr) {
      for (std::size_t r = 0; r < held->size(); ++r) {
        (*would_be)((*held)[r]) = w.held_lambda(static_cast<Eigen::Index>(r));
      }
    }
  }
}

template <class S>
Eigen::Matrix<S, Eigen::Dynamic, 1> acceleration(const PointT<S>& p,
                                                 const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                                                 const std::vector<char>& in_medium,
                                                 const std::vector<char>& pushing, const Medium& k,
                                                 Eigen::Matrix<S, Eigen::Dynamic, 1>* would_be,
                                                 const std::vector<int>* held = nullptr) {
  AccelerationWork<S> work;
  Eigen::Matrix<S, Eigen::Dynamic, 1> qdd;
  acceleration<S>(p, v, in_medium, pushing, k, work, qdd, would_be, held);
  return qdd;
}

// The realization of kinematic constraints g = a q̇ + b (Kozlov 1992 §2–3): L_N = T + αN/2 g² − V
// and Φ_N = βN/2 g² give
//   A q̈ = F − aᵀΛ + αN Ωᵀ g,  Λ = N(α ġ + β g),  ġ = a q̈ + g_rate
// (Ω: the curl, docs/theory.md §2). Written for the chart's ν = σ g (solvers/velocity_chart.hpp)
// without the ill-conditioned A + αN aᵀa: with W = a A⁻¹ aᵀ and c = a A⁻¹(F + αN Ωᵀ g) + g_rate,
//   ġ = (I + αN W)⁻¹ (c − βN W g),  Λ = αN ġ + βN g,  q̈ = A⁻¹(F + αN Ωᵀ g − aᵀΛ),  ν̇ = σ ġ.
// A one-sided row a q̇ + b ≥ 0 is realized by the one-sided friction −βN min(g, 0) aᵀ, a
// conditional row by its own friction β_t N while its constraint is in the medium
// (docs/theory.md §2): `row_damping` (null: every row acts with βN) gives each row's friction,
// 0 for a row that does not act (a one-sided row with g > 0, a conditional row out of contact);
// with K_r = 1 for the rows that act and 0 otherwise, Λ_r = K_r N α ġ_r + D_r g_r, so
// ġ = (I + αN W K)⁻¹ (c − W D g). The solver stops where a row starts or stops acting, so each
// phase is smooth. The unilateral holonomic constraints in the medium enter F through `Q`
// (medium_force below; α = 0 for them).
//
// Coulomb friction (`cone`, docs/theory.md §2 "Coulomb friction under realization"): the viscous
// friction D_r g_r of a Coulomb row is bounded by μ_r λ_k⁺, λ_k = −N s(β ḟ_k + γ f_k) the
// medium's reaction on the row's constraint k while it pushes (0 otherwise), so that
// Λ_r = clamp(D_r g_r, −μ_r λ_k⁺, μ_r λ_k⁺): creep at D_r g_r inside the cone, sliding against
// μ λ on it. Continuous in the state; the solver stops where a row reaches or leaves the cone, so
// each phase is smooth. Needs α = 0 (the added mass has no part in it).
struct FrictionCone {
  std::vector<int> constraint;  // per kinematic row: its constraint k, or −1 without Coulomb
  std::vector<double> mu;       // per kinematic row: μ (unused without Coulomb)
  const std::vector<char>* pushing = nullptr;  // per constraint: the medium pushes on it
};

// The medium's reaction λ_k⁺ ≥ 0 on constraint k at velocity v (0 where it does not push).
template <class S>
S cone_reaction(const PointT<S>& p, const Eigen::Matrix<S, Eigen::Dynamic, 1>& v,
                const FrictionCone& cone, const Medium& k, int constraint) {
  if (!(*cone.pushing)[static_cast<std::size_t>(constraint)]) return S(0.0);
  const S rate = p.J.row(constraint).dot(v) + p.f_t(constraint);
  const S lambda = -k.normal<S>(constraint, rate, p.f(constraint));
  return lambda > 0.0 ? lambda : S(0.0);
}

template <class S>
void kinematic_dynamics(const PointT<S>& p, const Eigen::Matrix<S, Eigen::Dynamic, 1>& nu,
                        double scale, const Medium& k, Eigen::Matrix<S, Eigen::Dynamic, 1>& qdd,
                        Eigen::Matrix<S, Eigen::Dynamic, 1>& nu_dot,
                        const std::vector<double>* row_damping = nullptr,
                        const FrictionCone* cone = nullptr,
                        const Eigen::Matrix<S, Eigen::Dynamic, 1>* v = nullptr) {
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  Vector g = nu / scale;
  Matrix K = Matrix::Identity(nu.size(), nu.size());
  Matrix D = k.damping * K;
  if (row_damping != nullptr) {
    for (Eigen::Index r = 0; r < nu.size(); ++r) {
      const double damping = (*row_damping)[static_cast<std::size_t>(r)];
      D(r, r) = S(damping);
      if (!(damping > 0.0)) K(r, r) = S(0.0);
    }
  }
  const Vector F = p.free_force() + k.mass * Vector(p.curl.transpose() * Vector(K * g));
  const Eigen::PartialPivLU<Matrix> A(p.A);
  const Matrix Ainv_at = A.solve(Matrix(p.a.transpose()));
  const Matrix W = p.a * Ainv_at;
  const Vector c = p.a * A.solve(F) + p.g_rate;
  const Matrix I = Matrix::Identity(W.rows(), W.cols());
  Vector friction = D * g;
  if (cone != nullptr) {
    for (Eigen::Index r = 0; r < nu.size(); ++r) {
      const int constraint = cone->constraint[static_cast<std::size_t>(r)];
      if (constraint < 0) continue;
      const S bound =
          cone->mu[static_cast<std::size_t>(r)] * cone_reaction<S>(p, *v, *cone, k, constraint);
      if (friction(r) > bound) friction(r) = bound;
      if (friction(r) < -bound) friction(r) = -bound;
    }
  }
  const Vector g_dot = Matrix(I + k.mass * W * K).partialPivLu().solve(Vector(c - W * friction));
  const Vector Lambda = k.mass * Vector(K * g_dot) + friction;
  qdd = A.solve(F) - Ainv_at * Lambda;
  nu_dot = scale * g_dot;
}

// The Jacobian of the first-order system in a velocity chart (solvers/velocity_chart.hpp),
// y = (q, w), ẏ = (q̇, ẇ): ∂ẏ/∂y and ∂ẏ/∂t at (t, y), by forward AD through the case and the
// medium's equations. The case's quantities come with derivatives over (q, q̇, t); they are
// carried over to (q, w, t) by C = ∂(q, q̇, t)/∂(q, w, t), with q̇ = V(q, w, t):
//   ∂V/∂w = T⁻¹, ∂V/∂q = −T⁻¹ (σ ∂g/∂q; 0), ∂V/∂t = −T⁻¹ (σ ∂g/∂t; 0),  T = (σ a; E_F),
// and ν enters as its own direction. In the identity chart this is ∂(q̇, q̈)/∂(q, q̇). Needs α = 0
// (d's derivatives are not available, see Model::evaluate_dual); with α > 0 the medium is not
// stiff and no Jacobian is needed.
struct RealizationJacobianWork {
  PointT<Dual> point;
  State x;
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  Eigen::Matrix<Dual, Eigen::Dynamic, 1> v, qdd;
  AccelerationWork<Dual> acceleration;
};

// The same Jacobian, ∂(q̇, q̈)/∂(q, q̇) and ∂/∂t, of the sparse right-hand side of a chain
// (cases/sparse_terms.hpp, with its Hessians: Model::sparse_hessians) for α = 0 and no kinematic
// rows: q̈ = (F − Σ_pushing J_kᵀ c_k)/mass with c_k = βN ḟ_k + γN f_k, F constant and f
// independent of t, so that
//   ∂q̈_i/∂q_j = −Σ_k (H_k,ij c_k + J_ki (βN (H_k q̇)_j + γN J_kj)) / mass_i,
//   ∂q̈_i/∂q̇_j = −Σ_k βN J_ki J_kj / mass_i,  ∂q̈/∂t = 0
// (H_k = ∂²f_k/∂q²). It needs no dual numbers, so it has no bound on n (the AD Jacobian's duals
// hold 2·kMaxDualDof + 1 directions); the dense 2n × 2n result is what the Rosenbrock method
// factorizes.
void sparse_realization_jacobian(const SparseTerms& terms, const Eigen::VectorXd& v,
                                 const std::vector<char>& pushing, const Medium& medium,
                                 Eigen::MatrixXd& jac, Eigen::VectorXd& dfdt);

// `held`: the ideal constraints in contact (acceleration()); their d enters q̈, and its
// derivatives, which the dual evaluation lacks, are taken by central differences (identity chart
// only: the model refuses ideal constraints beside kinematic ones).
void realization_jacobian(const Model& model, const VelocityChart& chart, double t,
                          const Eigen::VectorXd& y, Modes modes, const std::vector<char>& in_medium,
                          const std::vector<char>& pushing, const Medium& medium,
                          RealizationJacobianWork& w, Eigen::MatrixXd& jac, Eigen::VectorXd& dfdt,
                          const std::vector<double>* row_damping = nullptr,
                          const std::vector<int>* held = nullptr,
                          const FrictionCone* cone = nullptr);

// One way the depth a medium lets a constraint reach scales with N: coefficient·N^(−power).
struct DepthTerm {
  double coefficient = 0.0;
  double power = 1.0;
  const char* cause = "";  // "approach" (the constraint's rate carried into the medium) or "load"
};

// p with only the kinematic rows `rows` (their a, g, g_rate and curl): the point as the chart
// over those rows sees it, where the others coincide with them (VelocityChart::independent_rows).
Point with_kinematic_rows(const Point& p, const std::vector<int>& rows);

// The depth each unilateral constraint reaches in the medium (α, β, γ) under its law (scale s,
// exponent η; `laws` empty: linear, unit scale) from the state x where it touches (f_k ≤ its
// round-off; the point p evaluated at x), as terms c·N^(−p) of which the largest applies; none
// where it does not touch. An order estimate from x alone, with W = J A⁻¹ Jᵀ over the touching
// constraints and `span` the time a load may act (the horizon):
//   approach at the rate ḟ_k < 0: the spring stops it at ((η+1) ḟ²/(2 W_kk s γ N))^(1/(η+1))
//     (its energy), else the viscosity at |ḟ|/(W_kk s β N), else the added mass slows it to
//     ḟ/(W_kk s α N);
//   load λ_k > 0, the ideal reaction of the touching set (the complementarity problem
//     W λ + f̈_free ≥ 0, λ ≥ 0): the spring holds it at (λ/(s γ N))^(1/η), else the viscosity
//     lets it sink λ·span/(s β N), the added mass λ·span²/(2 s α N).
std::vector<std::vector<DepthTerm>> depth_terms(const Point& p, const State& x,
                                                const std::vector<int>& unilateral, double alpha,
                                                double beta, double gamma,
                                                const std::vector<ContactLaw>& laws, double span);
// A depth within this factor of the round-off of f is not resolved: the realization warns at its
// start and at its end, and crbench check bounds N by it.
inline constexpr double kDepthResolution = 100.0;
// The estimate at N: the largest term.
double depth_at(const std::vector<DepthTerm>& terms, double N);
// The largest N at which the estimate stays at or above `depth` (infinite for depth 0, NaN
// without terms).
double largest_N_above(const std::vector<DepthTerm>& terms, double depth);

}  // namespace crbench
