// The case layer. A case is one header with a struct that satisfies the `Case` concept below:
// the case author writes A(q), V(q,t), Q(q,q̇,t) and f(q,t) templated on the scalar type, and
// everything else (J, ∂f/∂t, d, ∂A/∂q, c, ∂V/∂q) is derived by automatic differentiation in
// solvers/dynamics.hpp. Solvers only see the type-erased `Model`.
#pragma once

#include <Eigen/Core>
#include <concepts>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "crbench/cases/params.hpp"

namespace crbench {

template <class S, int Rows>
using Vec = Eigen::Matrix<S, Rows, 1>;
template <class S, int Rows, int Cols>
using Mat = Eigen::Matrix<S, Rows, Cols>;

// A piecewise force is smooth within a mode; modes[j] = +1 while switching function s_j > 0 and
// −1 while s_j ≤ 0. Solvers stop exactly where some s_j changes sign and restart with the mode
// flipped, so nothing is integrated across a discontinuity.
using Modes = std::span<const int>;

// A solver setting the case carries, so that the case reproduces what it is named after without
// extra flags (e.g. Siconos's h and restitution); the user's flags override it.
struct CaseSolverSetting {
  std::string solver;
  std::string name;
  std::string value;
  std::string why;
};

// One generalized coordinate's name (an identifier: a letter, then letters, digits or '_') and
// unit.
struct CoordinateSpec {
  std::string name;
  std::string unit;
};

struct CaseInfo {
  std::string name;
  // One paragraph: the system, its equations, and the paper (authors, year, equation) it comes
  // from.
  std::string description;
  std::vector<ParamSpec> params;
  int dof = 0;  // n
  // The name and unit of each coordinate q_i (x, y, phi; "length", "angle (rad)"): records,
  // tables, trajectory columns and figure axes use them. Empty: q0, q1, ... without a unit. A
  // chain case gives one, expanded to one per body (x0, x1, ...).
  std::vector<CoordinateSpec> coordinates;
  // The unit of each constraint value f_k (the unilateral rows, then the bilateral ones); empty:
  // none stated.
  std::vector<std::string> constraint_units;
  // The name of each constraint f_k (an identifier, in the same order), by which a user selects
  // its quantities (its lift-off, impulse, penetration); empty: f0, f1, .... A chain case gives
  // one, expanded to one per contact (name0, name1, ...).
  std::vector<std::string> constraint_names;
  int constraints = 0;  // m
  int switches = 0;     // number of switching functions of the piecewise force
  std::vector<std::string> switch_names;
  // Kinematic (velocity) constraints a(q,t)·q̇ + b(q,t) = 0 (docs/theory.md §2); filled in by the
  // registry from the case's `kinematic` count.
  int kinematic = 0;
  // Of those, the first `unilateral_kinematic` are one-sided, a(q,t)·q̇ + b(q,t) ≥ 0
  // (Berezinskaya, Sorokina & Kugushev 2003 §1, §6); filled in by the registry.
  int unilateral_kinematic = 0;
  // Conditional constraints (Berezinskaya, Sorokina & Kugushev 2003 §1, §5): per kinematic row,
  // the unilateral constraint k while which it holds (the row is two-sided while f_k is in
  // contact and absent otherwise), or −1 for a row that always holds; empty: none. Written by the
  // case in info().
  std::vector<int> kinematic_condition;
  // Coulomb friction (docs/theory.md §2, "Coulomb friction"): the conditional rows that hold only
  // while their reaction ν stays within the cone |ν| ≤ μ λ of their constraint's reaction λ
  // (Model::friction_coefficient gives μ), and otherwise slip against the force −μ λ sign(g) aᵀ.
  // Such a row is the slip velocity of the contact point, and its constraint's f the normal
  // distance, so that ν and λ are the tangential and normal forces. Written by the case in info().
  std::vector<int> coulomb_rows;
  // Bilateral holonomic constraints f(q,t) = 0 (docs/theory.md §2): the last `bilateral` of the
  // `constraints` rows; filled in by the registry from the case's `bilateral` count.
  int bilateral = 0;
  std::vector<CaseSolverSetting> solver_settings;
};

struct State {
  double t = 0.0;
  Eigen::VectorXd q;
  Eigen::VectorXd v;
  // Variables a solver integrates alongside (q, q̇), e.g. z and z' of the limit model; empty
  // otherwise.
  Eigen::VectorXd aux;
};

// A lift-off time known in closed form for one model ("classical", "viscous", ...).
struct LiftOffFact {
  std::string model;
  double time = 0.0;
  std::string source;
  // The constraint (its name) whose lift-off this is; empty: the whole system's (the end of the
  // last contact episode of any constraint, RunRecord::lift_off_time).
  std::string constraint = {};
};

// An exact trajectory q(t) of one model; `realization_N` is used by realization closed forms
// (NaN for the ideal models). Returns nullopt outside the interval where the formula holds.
struct ClosedFormTrajectory {
  std::string model;
  std::string source;
  std::function<std::optional<Eigen::VectorXd>(double t, double realization_N)> q;
};

// Any other number the theory gives for the case, by name (e.g. "z(2 pi) in the (1,0,1) model").
struct ValueFact {
  std::string name;
  double value = 0.0;
  std::string source;
};

struct Facts {
  std::vector<LiftOffFact> lift_off;
  std::vector<ClosedFormTrajectory> trajectories;
  std::vector<ValueFact> values;

  std::optional<double> value(std::string_view name) const {
    for (const auto& v : values) {
      if (v.name == name) return v.value;
    }
    return std::nullopt;
  }

  // The lift-off of the whole system (`constraint` empty) or of one constraint, by its name.
  std::optional<double> lift_off_time(std::string_view model,
                                      std::string_view constraint = {}) const {
    for (const auto& f : lift_off) {
      if (f.model == model && f.constraint == constraint) return f.time;
    }
    return std::nullopt;
  }
  const ClosedFormTrajectory* trajectory(std::string_view model) const {
    for (const auto& f : trajectories) {
      if (f.model == model) return &f;
    }
    return nullptr;
  }
};

// For a case of unit point masses in Cartesian coordinates: A = I.
template <int N>
struct UnitMetric {
  template <class S>
  Mat<S, N, N> metric(const Vec<S, N>& /*q*/) const {
    return Mat<S, N, N>::Identity();
  }
};

// For a unit-mass body on a plane, q = (x, y, φ) with φ its rotation: A = diag(1, 1, J),
// J = `inertia` (the skate and disk cases).
struct PlanarBodyMetric {
  double inertia = 1.0;
  template <class S>
  Mat<S, 3, 3> metric(const Vec<S, 3>& /*q*/) const {
    Mat<S, 3, 3> A = Mat<S, 3, 3>::Identity();
    A(2, 2) = S(inertia);
    return A;
  }
};

namespace detail {
template <class Member>
struct member_class;
template <class R, class K>
struct member_class<R K::*> {
  using type = K;
};
}  // namespace detail

// Whether C's metric is one of the constant metrics above, inherited and not redefined (C's own
// `metric` hides the base's), or C states `static constexpr bool constant_metric = true` (a
// generated case whose metric has no q in it): then ∂A/∂q = 0 and the dynamics skip the Coriolis
// terms.
template <class C>
constexpr bool has_constant_metric() {
  if constexpr (requires { C::constant_metric; }) {
    return C::constant_metric;
  } else if constexpr (requires { &C::template metric<double>; }) {
    using Owner = typename detail::member_class<decltype(&C::template metric<double>)>::type;
    return std::is_same_v<Owner, UnitMetric<C::n>> || std::is_same_v<Owner, PlanarBodyMetric>;
  } else {
    return false;
  }
}

// For a case without unilateral constraints (its constraints are kinematic or bilateral).
template <int N>
struct NoUnilateralConstraints {
  static constexpr int m = 0;
  template <class S>
  Vec<S, 0> constraints(const Vec<S, N>& /*q*/, const S& /*t*/) const {
    return {};
  }
};

// For a case without a non-potential force Q and without force switches: inheriting it leaves
// the author the metric, V, f, the initial data and the facts.
template <int N>
struct NoForce {
  static constexpr int switches = 0;
  template <class S>
  Vec<S, N> force(const Vec<S, N>&, const Vec<S, N>&, const S&, Modes) const {
    return Vec<S, N>::Zero();
  }
  Vec<double, 0> switching(const Vec<double, N>&, const Vec<double, N>&, double) const {
    return {};
  }
};

// Optional in a case: `static constexpr int kinematic` rows of kinematic constraints
// a(q,t)·q̇ + b(q,t) = 0, given by `kinematic_rows<S>(q, t)` (the k×n matrix a) and, when b ≠ 0,
// `kinematic_offset<S>(q, t)` (the k-vector b); see cases/knife_edge_incline.hpp.
template <class C>
constexpr int kinematic_count() {
  if constexpr (requires { C::kinematic; }) {
    return C::kinematic;
  } else {
    return 0;
  }
}

// Optional in a case: `static constexpr int unilateral_kinematic`: the first that many of the
// `kinematic` rows are one-sided, a(q,t)·q̇ + b(q,t) ≥ 0, with a reaction λ aᵀ, λ ≥ 0,
// λ·(a q̇ + b) = 0 (Berezinskaya, Sorokina & Kugushev 2003 (1.5)); see cases/unilateral_skate.hpp.
template <class C>
constexpr int unilateral_kinematic_count() {
  if constexpr (requires { C::unilateral_kinematic; }) {
    static_assert(C::unilateral_kinematic <= kinematic_count<C>(),
                  "unilateral_kinematic counts rows of kinematic_rows");
    return C::unilateral_kinematic;
  } else {
    return 0;
  }
}

// Optional in a case: `static constexpr int bilateral` bilateral holonomic constraints
// f(q,t) = 0, given by `bilateral_constraints<S>(q, t)` (a vector of that size) beside the
// unilateral `constraints<S>`; solvers see them as the last rows of f (see
// cases/rubin_ungar_rail.hpp).
template <class C>
constexpr int bilateral_count() {
  if constexpr (requires { C::bilateral; }) {
    return C::bilateral;
  } else {
    return 0;
  }
}

// What a case author writes (see cases/dk_plane.hpp for a complete example).
template <class C>
concept Case = requires(const C& c, const ParamValues& p, const Vec<double, C::n>& q,
                        const Vec<double, C::n>& v, double t, Modes modes) {
  { C::n } -> std::convertible_to<int>;
  { C::m } -> std::convertible_to<int>;
  { C::switches } -> std::convertible_to<int>;
  { C::info() } -> std::same_as<CaseInfo>;
  C{p};
  { c.template metric<double>(q) } -> std::same_as<Mat<double, C::n, C::n>>;
  { c.template potential<double>(q, t) } -> std::same_as<double>;
  { c.template force<double>(q, v, t, modes) } -> std::same_as<Vec<double, C::n>>;
  { c.template constraints<double>(q, t) } -> std::same_as<Vec<double, C::m>>;
  { c.switching(q, v, t) } -> std::same_as<Vec<double, C::switches>>;
  { c.initial_state() } -> std::same_as<State>;
  { c.horizon() } -> std::convertible_to<double>;
  { c.facts() } -> std::same_as<Facts>;
};

// Everything a solver needs at one point (q, q̇, t) in one mode, in the notation of docs/theory.md
// §1: A q̈ + c = Q − ∂V/∂q + Jᵀλ and f̈ = J q̈ + d. Templated on the scalar so that solvers can write
// their right-hand side once and differentiate it (PointT<Dual>, see Model::evaluate_dual).
template <class S>
struct PointT {
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  Matrix A;       // kinetic metric
  Vector c;       // Coriolis/centrifugal terms from ∂A/∂q
  Vector grad_V;  // ∂V/∂q
  Vector Q;       // non-potential generalized force
  Vector f;       // constraint values
  Matrix J;       // ∂f/∂q, one row per constraint
  Vector f_t;     // ∂f/∂t
  Vector d;       // f̈ − J q̈ = żᵀ ∇²f ż with z = (q, t)
  // Kinematic constraints g = a q̇ + b = 0 (empty without them): a, the value g, the rate term
  // g_rate = ġ − a q̈ (ȧ q̇ + ḃ), and the curl Ω, row r:
  // Ω_ri = Σ_k (∂a_rk/∂q_i − ∂a_ri/∂q_k) q̇_k + ∂b_r/∂q_i − ∂a_ri/∂t (0 when a q̇ + b = ḟ).
  Matrix a;
  Vector g;
  Vector g_rate;
  Matrix curl;

  // The generalized force that is not a constraint reaction: Q − ∂V/∂q − c.
  Vector free_force() const { return Q - grad_V - c; }
  // ḟ = J q̇ + ∂f/∂t.
  Vector constraint_rate(const Vector& v) const { return J * v + f_t; }
};
using Point = PointT<double>;

// A forward-mode dual number whose derivative vector is taken over (q, q̇, t): 2n + 1 entries,
// q first, then q̇, then t. The vector is stored inline (a dynamic size within a fixed capacity):
// an AutoDiffScalar<VectorXd> allocates at every arithmetic operation, and the stiff phases
// evaluate a Jacobian through hundreds of them per step. Cases with n > kMaxDualDof have no
// evaluate_dual: it throws std::runtime_error, which a stiff realization phase turns into the
// status step_failure, unless the model has a sparse form with Hessians (a chain,
// Model::sparse_hessians), whose realization Jacobian needs no dual numbers.
inline constexpr int kMaxDualDof = 16;
using DualDerivatives = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 2 * kMaxDualDof + 1, 1>;
using Dual = Eigen::AutoDiffScalar<DualDerivatives>;

// The sparse form of a model's terms (cases/sparse_terms.hpp), for the solvers that can use it.
struct SparseTerms;

// How a realization's medium acts on one unilateral constraint (solvers/realization_dynamics.hpp):
// its (α, β, γ) times `scale`, and the stiffness force γN·scale·(−f)^exponent in place of −γN f
// (exponent 1: a linear spring; 3/2: Hertz's law of two elastic spheres). The ideal models do not
// depend on it; only a realization sees it.
struct ContactLaw {
  double scale = 1.0;
  double exponent = 1.0;
  bool operator==(const ContactLaw&) const = default;
};

// The type-erased case with its parameters bound; built by the registry.
class Model {
 public:
  virtual ~Model() = default;
  virtual const CaseInfo& info() const = 0;
  virtual const ParamValues& params() const = 0;
  int dof() const { return info().dof; }
  int constraint_count() const { return info().constraints; }
  int switch_count() const { return info().switches; }
  int kinematic_count() const { return info().kinematic; }
  int bilateral_count() const { return info().bilateral; }
  int unilateral_kinematic_count() const { return info().unilateral_kinematic; }
  // Kinematic row r is one-sided (the first unilateral_kinematic_count() rows).
  bool is_unilateral_kinematic(int r) const { return r < unilateral_kinematic_count(); }
  // The unilateral constraint that conditions kinematic row r, or −1
  // (CaseInfo::kinematic_condition).
  int kinematic_condition(int r) const {
    const auto& c = info().kinematic_condition;
    return c.empty() ? -1 : c[static_cast<std::size_t>(r)];
  }
  // The impact law of a conditional row r (the "roughness", Berezinskaya, Sorokina &
  // Kugushev 2003 §5): at an impact of its constraint, g⁺ = −e_t g⁻ with e_t ∈ [−1, 1]
  // (−1: the row does not act, a smooth impact; 0: it holds, sticking; 1: elastic). 0 unless the
  // case says otherwise (`slip_restitution(r)`).
  virtual double slip_restitution(int /*r*/) const { return 0.0; }
  // The Coulomb coefficient μ of kinematic row r (CaseInfo::coulomb_rows): infinite (the row
  // holds whatever its reaction) unless the case says otherwise (`friction_coefficient(r)`).
  virtual double friction_coefficient(int /*r*/) const {
    return std::numeric_limits<double>::infinity();
  }
  bool has_coulomb_friction() const { return !info().coulomb_rows.empty(); }
  // The medium's law on unilateral constraint k: linear with unit scale unless the case says
  // otherwise (`contact_law(k)`: stiffness ratios between contacts, Hertz's exponent).
  virtual ContactLaw contact_law(int /*k*/) const { return {}; }
  // Row k of f is a bilateral constraint (the last bilateral_count() rows).
  bool is_bilateral(int k) const { return k >= constraint_count() - bilateral_count(); }

  virtual void evaluate(const State& x, Modes modes, Point& out) const = 0;
  // The same quantities with their derivatives over (q, q̇, t) (see Dual), except d, whose
  // derivatives are NaN (they are third derivatives of f); d itself is exact.
  virtual void evaluate_dual(const State& x, Modes modes, PointT<Dual>& out) const = 0;
  // F = Q − ∂V/∂q − c alone (cheaper than evaluate when nothing else is needed). The forms with
  // an output argument do not allocate once `out` has its size (the solvers' hot loops).
  virtual void free_force(const State& x, Modes modes, Eigen::VectorXd& out) const = 0;
  Eigen::VectorXd free_force(const State& x, Modes modes) const {
    Eigen::VectorXd out;
    free_force(x, modes, out);
    return out;
  }
  // ∂F/∂q and ∂F/∂q̇ of F = Q − ∂V/∂q − c (for implicit and linearly implicit steps).
  virtual void force_jacobians(const State& x, Modes modes, Eigen::MatrixXd& dF_dq,
                               Eigen::MatrixXd& dF_dv) const = 0;
  virtual void constraint_values(double t, const Eigen::VectorXd& q,
                                 Eigen::VectorXd& out) const = 0;
  Eigen::VectorXd constraint_values(double t, const Eigen::VectorXd& q) const {
    Eigen::VectorXd out;
    constraint_values(t, q, out);
    return out;
  }
  // The kinematic constraints' a(q,t) (k×n) and b(q,t) (g = a q̇ + b); empty without them.
  virtual void kinematic_affine(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& a,
                                Eigen::VectorXd& b) const = 0;
  virtual void switching_values(const State& x, Eigen::VectorXd& out) const = 0;
  Eigen::VectorXd switching_values(const State& x) const {
    Eigen::VectorXd out;
    switching_values(x, out);
    return out;
  }

  // The case's own functions at double precision (finite-difference tests, energies).
  virtual Eigen::MatrixXd metric(const Eigen::VectorXd& q) const = 0;
  virtual double potential(double t, const Eigen::VectorXd& q) const = 0;
  virtual Eigen::VectorXd force(const State& x, Modes modes) const = 0;

  virtual State initial_state() const = 0;
  virtual double horizon() const = 0;
  virtual Facts facts() const = 0;

  // Fills `out` and returns true when the model has a sparse form (a chain case, see
  // cases/sparse_terms.hpp); the dense evaluate stays available for every model.
  virtual bool sparse_terms(const State& /*x*/, SparseTerms& /*out*/) const { return false; }
  // Fills terms.hessians for the pattern of terms.J (sparse_terms at the same x first) and
  // returns true when the model has them and its constraints do not depend on t (f_t = 0, J
  // independent of t): what the sparse Jacobian of a realization needs (solvers/
  // realization_dynamics.hpp).
  virtual bool sparse_hessians(const State& /*x*/, SparseTerms& /*terms*/) const { return false; }

  // The modes that hold at x: +1 where s_j > 0, −1 where s_j ≤ 0. The second form fills `modes`
  // through the workspace `s` (no allocation once both have their sizes).
  std::vector<int> modes_at(const State& x) const {
    std::vector<int> modes;
    Eigen::VectorXd s;
    modes_at(x, modes, s);
    return modes;
  }
  void modes_at(const State& x, std::vector<int>& modes, Eigen::VectorXd& s) const {
    switching_values(x, s);
    modes_of(s, modes);
  }
  // The modes of the switching values s (a loop that has them already).
  static void modes_of(const Eigen::VectorXd& s, std::vector<int>& modes) {
    modes.resize(static_cast<std::size_t>(s.size()));
    for (Eigen::Index j = 0; j < s.size(); ++j)
      modes[static_cast<std::size_t>(j)] = s(j) > 0 ? 1 : -1;
  }
  double kinetic_energy(const State& x) const { return 0.5 * x.v.dot(metric(x.q) * x.v); }
  // T + V of the case (a realization's medium energy is not part of it).
  double energy(const State& x) const { return kinetic_energy(x) + potential(x.t, x.q); }

  // q_i's name (CaseInfo::coordinates), or "q<i>" where the case names none (cases/registry.cpp).
  std::string coordinate_name(int i) const;
  // q_i's unit, or "" where the case states none.
  std::string coordinate_unit(int i) const;
  // f_k's unit, or "" where the case states none.
  std::string constraint_unit(int k) const;
  // f_k's name (CaseInfo::constraint_names), or "f<k>" where the case names none.
  std::string constraint_name(int k) const;
  // The constraint a user names by its name or its index ("wall", "0"); an InputError naming
  // `field` and the case's constraints otherwise.
  int constraint_index(const std::string& name_or_index, const std::string& field) const;
};

}  // namespace crbench
