// Moreau–Jean time stepping of the measure differential equation
//   d(A q̇) = F dt + Jᵀ dμ,  dμ ≥ 0 on {f = 0}          (Kugushev & Sorokina 2002, section 2;
//   Berezinskaya, Sorokina & Kugushev 2003)
// with F = Q − ∂V/∂q − c. One step from t_k to t_{k+1} = t_k + h:
//  1. smooth part, θ-method linearized once about (q_k, q̇_k) (exact for linear systems):
//       W = A(q_k) − hθ ∂F/∂q̇ − h²θ² ∂F/∂q,
//       q̇_free = q̇_k + W⁻¹ h [θ F(t_{k+1}, q_k, q̇_k) + (1 − θ) F(t_k, q_k, q̇_k) + hθ ∂F/∂q q̇_k];
//  2. activation: constraint i takes part in the step when f_i(q_k) + γ h ḟ_i(q_k, q̇_k) ≤ 0
//     (the prediction of f at t_k + γh; γ = 1/2 is Siconos's default rule);
//  3. impulses P on the active set I from Newton's law at velocity level,
//       0 ≤ ḟ_I(k+1) + e ḟ_I(k) ⊥ P ≥ 0,  q̇_{k+1} = q̇_free + W⁻¹ J_Iᵀ P,
//     with ḟ = J(q_k) q̇ + ∂f/∂t(q_k, t_k): one constraint in closed form, several by an LCP
//     (solvers/lcp.hpp): the exact enumeration up to kLcpEnumerationSize rows, beyond it block
//     principal pivoting with banded solves where the Delassus matrix is banded (a chain) and
//     Lemke's method (Siconos numerics) otherwise, or the method `lcp` names;
//  4. q_{k+1} = q_k + h (θ q̇_{k+1} + (1 − θ) q̇_k).
// Kinematic constraints g = a q̇ + b enter step 3 at the velocity level with a, b at (q_k, t_k)
// (Berezinskaya, Sorokina & Kugushev 2003 (1.5): reactions aᵀ dν): the two-sided rows E as
// equalities E q̇_{k+1} + b_E = 0, eliminated first (their impulse by the Schur complement
// E W⁻¹ Eᵀ), the one-sided rows U as complementarity rows 0 ≤ U q̇_{k+1} + b_U ⊥ P_U ≥ 0 beside
// the holonomic ones, without restitution: a one-sided kinematic row is reached with g = 0, where
// Newton's law has nothing to restore (ibid. §8).
// Coulomb friction (CaseInfo::coulomb_rows; every contact of the case carries one row, the slip
// g_r = a_r q̇ + b_r of its contact point, and no other kinematic row is present): each active
// contact i takes a normal impulse P_N along J_i and a tangential one P_T along a_r, from the
// step's frictional contact problem of dimension 2 (Moreau's velocity-level Coulomb law, as the
// Siconos kernel's MoreauJeanOSI with NewtonImpactFrictionNSL, tangential restitution 0):
//   u = G W⁻¹ Gᵀ P + u_free,  0 ≤ u_N ⊥ P_N ≥ 0,  |P_T| ≤ μ P_N,  P_T = −μ P_N sign(u_T) if u_T ≠
//   0,
// with u_N = ḟ_i(k+1) + e ḟ_i(k) and u_T = g_r at q̇_{k+1}; solved by Siconos numerics' fc2d
// solvers (solve_friction_contact_2d, solvers/lcp.hpp).
// The force mode of a piecewise force is that of (q_k, q̇_k, t_k): no event is located.
#include "crbench/solvers/moreau_jean.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "crbench/cases/sparse_terms.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/impact_law.hpp"
#include "crbench/solvers/lcp.hpp"
#include "crbench/solvers/step_output.hpp"

namespace crbench {

std::string MoreauJeanSolver::description() const {
  return "Ideal model as a measure differential equation, Moreau-Jean time stepping: theta-method "
         "for the smooth part, activation by f + gamma h f' <= 0, impulses from Newton's law 0 <= "
         "f'(k+1) + e f'(k) _|_ P >= 0 (closed form for one constraint, an LCP for several: "
         "enumeration up to 4 rows, Lemke beyond); Coulomb friction by the step's frictional "
         "contact problem (Siconos numerics' fc2d). First order; impacts, sliding and lift-off "
         "without events.";
}

std::vector<ParamSpec> MoreauJeanSolver::parameters() const {
  std::vector<ParamSpec> params{
      {.name = "h",
       .default_value = 1e-3,
       .min = 0.0,
       .max = 1.0,
       .min_inclusive = false,
       .unit = "time",
       .description = "time step"},
      {.name = "theta",
       .default_value = 0.5,
       .min = 0.5,
       .max = 1.0,
       .description = "theta of the theta-method (0.5 trapezoidal, 1 backward Euler)"},
      {.name = "activation_gamma",
       .default_value = 0.5,
       .min = 0.0,
       .max = 1.0,
       .description = "a constraint is active in a step when f + gamma h f' <= 0 at its start"},
      {.name = "impulse_history",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1.0,
       .description =
           "1: the record lists every nonzero impulse (t, constraint, P), the first 100000 of them",
       .whole = true},
      kMaxFixedStepsSpec,
      {.name = "events_kept",
       .default_value = 20000,
       .min = 1,
       .max = 1e7,
       .description = "events the record keeps (about 5 MB of JSON by default; a touching chain of "
                      "1000 balls has one per contact and step); the rest are counted "
                      "(diagnostics.events_not_kept) and lift_off_time is still computed from "
                      "every step",
       .whole = true},
      {.name = "lcp_tolerance",
       .default_value = 1e-14,
       .min = 0.0,
       .max = 1e-3,
       .min_inclusive = false,
       .description = "tolerance of the projected Gauss-Seidel LCP solver (--lcp pgs; Siconos "
                      "numerics' error measure)"},
  };
  std::vector<ParamSpec> law = impact_law_params();
  law.push_back({.name = "restitution_threshold",
                 .default_value = 0.0,
                 .min = 0.0,
                 .max = 1e3,
                 .description =
                     "approach speed |f'| at or below which an active row takes e = 0: a "
                     "sustained contact rests instead of chattering under Newton's law (the "
                     "usual treatment of resting contact); 0: e at every step",
                 // Unset, it plays no part: a record is what it was before the threshold existed.
                 .omitted_at_default = true});
  params.insert(params.begin() + 2, law.begin(), law.end());
  return params;
}

std::vector<ChoiceSpec> MoreauJeanSolver::choices() const {
  return {{.name = "lcp",
           .options = {"auto", "enumeration", "lemke", "pgs", "banded"},
           .default_value = "auto",
           .description = "solver of the impulse LCP with several active rows: auto (enumeration "
                          "up to 4 rows, beyond them banded where the Delassus matrix has a band "
                          "of at most 8, as a chain's, and Lemke otherwise), enumeration (exact, "
                          "up to 16 rows), lemke (Siconos numerics' lexicographic Lemke), pgs "
                          "(Siconos numerics' projected Gauss-Seidel, to lcp_tolerance), banded "
                          "(block principal pivoting with banded solves, Judice & Pires 1994: "
                          "O(m) for a chain)"},
          impact_law_choice()};
}

void MoreauJeanSolver::finalize(ParamValues& params, ChoiceValues& choices,
                                const std::vector<std::string>& assigned) const {
  apply_impact_law(params, choices, assigned, "solver " + name());
}

namespace moreau_jean_detail {
namespace {

// The impulse history's bound (about 10 MB of JSON): the impulses past it are counted, not kept.
constexpr std::size_t kMaxImpulseHistory = 100000;

using SparseRow = Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator;

// Each constraint's contact episode, step by step (the record's episode_definition): none; an
// impact in the last step only (an episode of zero length, closed unless the impulse goes on);
// or open (a contact, or an impact whose impulse persisted: resting contact after it).
enum class Episode : char { none, impact, open };

// One run: the model and settings (read once), the step's workspace (sized at the start: a step
// without kinematic rows and with at most one active constraint allocates nothing,
// tests/test_allocations.cpp; an LCP of several rows and the kinematic rows' elimination still
// allocate their matrices) and what the record accumulates.
class Run {
 public:
  Run(const Model& model, const RunSettings& settings, RunRecord& record)
      : model_(model),
        settings_(settings),
        record_(record),
        h_(settings.solver_params.at("h")),
        theta_(settings.solver_params.at("theta")),
        // Newton's law per active row, e from its Λ (the Kozlov wall's law; Newton's fixed e
        // ignores it): the diagonal of the step's Delassus matrix J W⁻¹ Jᵀ, which tends to
        // J A⁻¹ Jᵀ as h → 0.
        impact_law_(ImpactLaw::from(settings.solver_params)),
        restitution_threshold_(settings.solver_params.count("restitution_threshold")
                                   ? settings.solver_params.at("restitution_threshold")
                                   : 0.0),
        gamma_(settings.solver_params.at("activation_gamma")),
        keep_impulses_(settings.solver_params.at("impulse_history") >= 0.5),
        n_(model.dof()),
        m_(model.constraint_count()),
        one_sided_(model.unilateral_kinematic_count()),
        lcp_choice_(settings.solver_choices.at("lcp")),
        lcp_options_{.method = lcp_method(lcp_choice_),
                     .pgs_tolerance = settings.solver_params.at("lcp_tolerance")},
        events_kept_(static_cast<std::size_t>(settings.solver_params.at("events_kept"))),
        output_(settings, h_) {
    record_.tolerances = {{"h", h_}, {"theta", theta_}, {"activation_gamma", gamma_}};
    if (restitution_threshold_ > 0.0) {
      record_.tolerances["restitution_threshold"] = restitution_threshold_;
    }
    if (lcp_options_.method == LcpMethod::pgs) {
      record_.tolerances["lcp_tolerance"] = lcp_options_.pgs_tolerance;
    }
    record_.episode_definition = kStepEpisodeDefinition;
    record_.min_constraint.assign(static_cast<std::size_t>(m_),
                                  std::numeric_limits<double>::infinity());
  }

  // The initial state and the step count; false (the record ended, saying why) when the run
  // cannot start: a non-finite initial state, or more steps needed than max_steps.
  bool start(std::chrono::steady_clock::time_point started) {
    x_ = model_.initial_state();
    if (const auto why = non_finite_start(model_, x_)) {
      end_before_start(record_, Status::non_finite, *why, x_, model_, started);
      return false;
    }
    // The scale the penetration is measured against: |q| at the start (a point that flies off
    // leaves it behind), or the largest |q| seen when that is 0.
    start_size_ = x_.q.lpNorm<Eigen::Infinity>();
    coordinate_size_ = start_size_;
    t0_ = x_.t;
    const double span = settings_.t_end - t0_;
    const double steps_needed = std::ceil(span / h_ - 1e-9);
    const double max_steps = settings_.solver_params.at("max_steps");
    if (steps_needed > max_steps) {
      end_before_start(record_, Status::too_many_steps,
                       format_number(steps_needed) + " steps of h = " + format_number(h_) +
                           " are needed and max_steps is " + format_number(max_steps),
                       x_, model_, started);
      return false;
    }
    step_count_ = static_cast<long>(steps_needed);
    moving_constraints_ = constraints_depend_on_time(model_, settings_.t_end);
    allocate();
    emit(x_, x_);
    const Eigen::VectorXd f0 = model_.constraint_values(x_.t, x_.q);
    for (int i = 0; i < m_; ++i) record_.min_constraint[static_cast<std::size_t>(i)] = f0(i);
    return true;
  }

  // Every step to the horizon, or to the first failure (status and reason in the record).
  void steps(std::chrono::steady_clock::time_point started) {
    const WallTimeBudget wall_time(started, settings_.max_wall_time, settings_.on_progress);
    for (long k = 0; k < step_count_; ++k) {
      // Every step (a clock read, against a step of microseconds to tens of milliseconds: one
      // look per 256 steps let a long chain overrun its bound by far).
      if (stop_at_wall_time(wall_time, x_.t, record_)) break;
      const double t_next =
          k + 1 == step_count_ ? settings_.t_end : t0_ + static_cast<double>(k + 1) * h_;
      const double dt = t_next - x_.t;
      Eigen::Index holonomic_rows = 0;
      Eigen::Index rows = 0;
      if (sparse_) {
        if (!sparse_step(t_next, dt, holonomic_rows)) break;
        rows = holonomic_rows;
      } else if (!dense_step(t_next, dt, holonomic_rows, rows)) {
        break;
      }
      if (rows > 0) account_impulses(t_next, dt, holonomic_rows);
      if (!model_.info().coulomb_rows.empty()) account_slips(t_next, holonomic_rows);
      close_episodes(t_next);
      if (!advance(t_next, dt)) break;
    }
  }

  void finish(std::chrono::steady_clock::time_point started);

 private:
  void allocate();
  // The samples due at the end of the step from `before` to `after` (StepOutput::step_end).
  void emit(const State& before, const State& after);
  void add_event(Event e);
  void episode_ended(double t);
  int row_band(Eigen::Index rows);
  double sparse_delassus(Eigen::Index r, Eigen::Index c) const;
  template <class Jacobian>
  void activate(const Jacobian& J, const Eigen::VectorXd& f, const Eigen::VectorXd& f_t, double dt);
  bool single_row_impulse(double D00);
  bool lcp_into_impulses(const std::optional<LcpSolution>& lcp, Eigen::Index rows);
  bool sparse_lcp(Eigen::Index active_rows);
  bool sparse_step(double t_next, double dt, Eigen::Index& active_rows);
  bool dense_free_velocity(double t_next, double dt);
  bool dense_impulses(Eigen::Index holonomic_rows, Eigen::Index rows);
  bool coulomb_impulses(Eigen::Index contacts);
  void account_slips(double t_next, Eigen::Index contacts);
  bool dense_step(double t_next, double dt, Eigen::Index& holonomic_rows, Eigen::Index& rows);
  void account_impulses(double t_next, double dt, Eigen::Index holonomic_rows);
  void close_episodes(double t_next);
  bool advance(double t_next, double dt);
  // Newton's e of an active row with Λ = `normal_square` and start-of-step rate f' = `rate`: the
  // law's, or 0 for a resting contact (|f'| <= restitution_threshold_; with the threshold 0 the
  // product e f' is the law's at every rate).
  double restitution(double normal_square, double rate) const {
    return std::abs(rate) > restitution_threshold_ ? impact_law_.restitution(normal_square) : 0.0;
  }

  const Model& model_;
  const RunSettings& settings_;
  RunRecord& record_;
  const double h_, theta_;
  const ImpactLaw impact_law_;
  // Rows whose approach speed |f'| is at most this take e = 0 (restitution_threshold).
  const double restitution_threshold_;
  const double gamma_;
  const bool keep_impulses_;
  const int n_, m_, one_sided_;
  const std::string lcp_choice_;
  const LcpOptions lcp_options_;
  const std::size_t events_kept_;
  StepOutput output_;

  State x_, before_;
  double start_size_ = 0.0, coordinate_size_ = 0.0, t0_ = 0.0;
  long step_count_ = 0;
  bool moving_constraints_ = false;
  bool sparse_ = false;

  // What the record accumulates.
  Eigen::VectorXd impulse_, lambda_, mu_;
  Eigen::VectorXd total_impulse_;  // Σ P over the steps per constraint
  std::vector<Episode> episode_;
  // The end of the latest episode, from every step (the record keeps at most events_kept events).
  std::optional<double> last_episode_end_;
  long events_not_kept_ = 0;
  Eigen::VectorXd kinematic_impulse_;
  std::vector<char> had_kinematic_impulse_;
  // The kinematic constraints hold at t_{k+1} only through a(q_k): |g| of the two-sided rows and
  // −min g of the one-sided ones at the step ends are reported.
  double kinematic_drift_ = 0.0;
  long force_evaluations_ = 0;
  long lcp_solves_ = 0;
  long banded_lcp_solves_ = 0;
  long lcp_iterations_ = 0;
  nlohmann::ordered_json impulse_history_ = nlohmann::ordered_json::array();
  long impulses_not_kept_ = 0;

  // The step's workspace.
  Point point_, point_next_;
  Eigen::VectorXd rate_t_next_;  // ∂f/∂t at the end of the step (t_{k+1}, q_k)
  Eigen::MatrixXd dF_dq_, dF_dv_, W_;
  std::vector<int> modes_, modes_next_;
  Eigen::VectorXd switching_work_;
  State predicted_, at_next_;
  Eigen::VectorXd F_next_, F_now_, rhs_, v_next_, v_free_, pivots_, column_;
  Eigen::VectorXd rate_, rate_next_, f_next_;
  Eigen::VectorXd P_, b_, normal_norm_, normal_square_;
  // The sparse form (a chain case, cases/sparse_terms.hpp) when the model has one and the step
  // needs nothing it leaves out (kinematic rows, force switches): W = A = diag(mass), and a step
  // costs O(n) plus the LCP of its active contacts. The dense workspace is then not allocated
  // (three n×n matrices at n = 1000 are 24 MB).
  SparseTerms terms_, terms_next_;
  Eigen::MatrixXd G_, Winv_Gt_, D_;
  Eigen::MatrixXd D_active_;  // the sparse step's Delassus matrix, sized at its first LCP
  BandedSymmetric D_band_;    // the same, banded (a chain)
  std::vector<Eigen::Index> column_low_, column_high_;
  Eigen::LDLT<Eigen::MatrixXd> A_ldlt_;
  Eigen::PartialPivLU<Eigen::MatrixXd> W_lu_;
  std::vector<int> active_, equality_rows_;

  // Coulomb friction: each constraint's Coulomb row and μ (−1 and 0 without one); whether each
  // row held its contact point at rest in the last step (its events are its changes) and in this
  // one; the step's tangential impulses of the active contacts.
  std::vector<int> coulomb_row_;
  Eigen::VectorXd friction_;
  std::vector<char> sticking_;
  Eigen::VectorXd tangential_impulse_;
  std::vector<char> sticking_now_;
  long friction_solves_ = 0, friction_enumerations_ = 0;
};

void Run::allocate() {
  impulse_ = Eigen::VectorXd::Zero(m_);
  total_impulse_ = Eigen::VectorXd::Zero(m_);
  lambda_ = Eigen::VectorXd::Zero(m_);
  mu_ = Eigen::VectorXd::Zero(m_);
  episode_.assign(static_cast<std::size_t>(m_), Episode::none);
  kinematic_impulse_ = Eigen::VectorXd::Zero(one_sided_);
  had_kinematic_impulse_.assign(static_cast<std::size_t>(one_sided_), 0);
  const int max_rows = m_ + one_sided_;
  modes_.reserve(static_cast<std::size_t>(model_.switch_count()));
  modes_next_.reserve(static_cast<std::size_t>(model_.switch_count()));
  switching_work_.resize(model_.switch_count());
  predicted_ = State{x_.t, x_.q, x_.v};
  at_next_ = State{x_.t, x_.q, x_.v};
  for (Eigen::VectorXd* v : {&F_next_, &F_now_, &rhs_, &v_next_, &v_free_, &pivots_, &column_}) {
    v->resize(n_);
  }
  for (Eigen::VectorXd* v : {&rate_, &rate_next_, &f_next_}) v->resize(m_);
  for (Eigen::VectorXd* v : {&P_, &b_, &normal_norm_, &normal_square_}) v->resize(max_rows);
  sparse_ = model_.kinematic_count() == 0 && model_.switch_count() == 0 &&
            model_.sparse_terms(x_, terms_);
  const Eigen::Index dense_n = sparse_ ? 0 : n_;
  const Eigen::Index dense_rows = sparse_ ? 0 : max_rows;
  G_.resize(dense_rows, dense_n);
  Winv_Gt_.resize(dense_n, dense_rows);
  D_.resize(dense_rows, dense_rows);
  A_ldlt_ = Eigen::LDLT<Eigen::MatrixXd>(dense_n);
  W_lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(dense_n);
  coulomb_row_.assign(static_cast<std::size_t>(m_), -1);
  friction_ = Eigen::VectorXd::Zero(m_);
  for (const int r : model_.info().coulomb_rows) {
    const int i = model_.kinematic_condition(r);
    coulomb_row_[static_cast<std::size_t>(i)] = r;
    friction_(i) = model_.friction_coefficient(r);
  }
  sticking_.assign(static_cast<std::size_t>(model_.kinematic_count()), 0);
  active_.reserve(static_cast<std::size_t>(m_));
  equality_rows_.reserve(static_cast<std::size_t>(model_.kinematic_count()));
}

void Run::emit(const State& before, const State& after) {
  output_.step_end(before, after, [this](const State& s, bool /*at_end*/) {
    TrajectorySample sample;
    sample.x = s;
    sample.f = model_.constraint_values(s.t, s.q);
    sample.lambda = lambda_;
    sample.mu = mu_;
    sample.impulse = impulse_;
    return sample;
  });
}

void Run::add_event(Event e) {
  if (record_.events.size() < events_kept_) {
    record_.events.push_back(std::move(e));
  } else {
    ++events_not_kept_;
  }
}

// An impact ends at its step's end, a contact's lift-off at the step's start: within one step an
// impact's end can come before a lift-off's, so the latest is a maximum.
void Run::episode_ended(double t) {
  last_episode_end_ = last_episode_end_ ? std::max(*last_episode_end_, t) : t;
}

// The bandwidth of D for the first `rows` active rows, or −1 when their column ranges do not move
// right with the row (D is then not known to be banded): D_rc ≠ 0 needs the ranges of r and c to
// overlap, and with monotone ranges the rows that overlap r's follow it.
int Run::row_band(Eigen::Index rows) {
  column_low_.resize(static_cast<std::size_t>(rows));
  column_high_.resize(static_cast<std::size_t>(rows));
  for (Eigen::Index r = 0; r < rows; ++r) {
    Eigen::Index low = n_, high = -1;
    for (SparseRow it(terms_.J, active_[static_cast<std::size_t>(r)]); it; ++it) {
      low = std::min<Eigen::Index>(low, it.col());
      high = std::max<Eigen::Index>(high, it.col());
    }
    const auto at = static_cast<std::size_t>(r);
    column_low_[at] = low;
    column_high_[at] = high;
    if (r > 0 && (low < column_low_[at - 1] || high < column_high_[at - 1])) return -1;
  }
  Eigen::Index band = 0, last = 0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    last = std::max(last, r);
    while (last + 1 < rows && column_low_[static_cast<std::size_t>(last + 1)] <=
                                  column_high_[static_cast<std::size_t>(r)]) {
      ++last;
    }
    band = std::max(band, last - r);
  }
  return static_cast<int>(band);
}

// D_rc = J_r A⁻¹ J_cᵀ of two active rows from their nonzeros (rows that share no column give 0).
double Run::sparse_delassus(Eigen::Index r, Eigen::Index c) const {
  double sum = 0.0;
  SparseRow a(terms_.J, active_[static_cast<std::size_t>(r)]);
  SparseRow z(terms_.J, active_[static_cast<std::size_t>(c)]);
  while (a && z) {
    if (a.col() < z.col()) {
      ++a;
    } else if (z.col() < a.col()) {
      ++z;
    } else {
      sum += a.value() * (z.value() / terms_.mass(a.col()));
      ++a;
      ++z;
    }
  }
  return sum;
}

// The step's constraint rates ḟ = J q̇_k + ∂f/∂t and its active set, f + γ h ḟ ≤ 0 (γ the
// activation_gamma setting); the impulses of the last step reset. J: the sparse form's or the
// dense one's.
template <class Jacobian>
void Run::activate(const Jacobian& J, const Eigen::VectorXd& f, const Eigen::VectorXd& f_t,
                   double dt) {
  rate_.noalias() = J * x_.v;
  rate_ += f_t;
  active_.clear();
  for (int i = 0; i < m_; ++i) {
    if (f(i) + gamma_ * dt * rate_(i) <= 0.0) active_.push_back(i);
  }
  impulse_.setZero();
  lambda_.setZero();
  mu_.setZero();
}

// The impulse of a single active row with Delassus number D00 = J W⁻¹ Jᵀ: max(0, −b/D00); false
// (the record says why) when D00 is not positive.
bool Run::single_row_impulse(double D00) {
  if (!(D00 > 0.0)) {
    record_.status = Status::singular_active_set;
    record_.reason = "J W^-1 J^T = " + format_number(D00) + " at t = " + format_number(x_.t);
    return false;
  }
  P_(0) = std::max(0.0, -b_(0) / D00);
  return true;
}

// The LCP's solution as the step's impulses P (and its iterations counted); false (the record
// says why) when no impulse solves the step complementarity.
bool Run::lcp_into_impulses(const std::optional<LcpSolution>& lcp, Eigen::Index rows) {
  if (!lcp) {
    record_.status = Status::lcp_failure;
    record_.reason = "no impulse solves the step complementarity at t = " + format_number(x_.t);
    return false;
  }
  P_.head(rows) = lcp->x;
  lcp_iterations_ += lcp->iterations;
  return true;
}

// The sparse step's LCP of several active rows into P. Where the rows' column ranges move right
// with the row (a chain), D is banded: row r meets only the rows whose ranges overlap its own,
// and the banded LCP makes the step O(n).
bool Run::sparse_lcp(Eigen::Index active_rows) {
  const int band =
      lcp_options_.method == LcpMethod::automatic || lcp_options_.method == LcpMethod::banded
          ? row_band(active_rows)
          : -1;
  const bool banded = band >= 0 && active_rows > kLcpEnumerationSize &&
                      (lcp_options_.method == LcpMethod::banded || band <= kLcpBandedMaxBandwidth);
  ++lcp_solves_;
  std::optional<LcpSolution> lcp;
  if (banded) {
    D_band_.resize(active_rows, band);
    for (Eigen::Index r = 0; r < active_rows; ++r) {
      for (Eigen::Index d = 0; d <= band && d <= r; ++d) {
        D_band_.lower(r, d) = sparse_delassus(r, r - d);
      }
    }
    lcp = solve_banded_lcp(D_band_, b_.head(active_rows), 1e-12, 1.0);
    ++banded_lcp_solves_;
  }
  // auto: Lemke's method where the banded one meets a subsystem that is not positive definite.
  if (!banded || (!lcp && lcp_options_.method == LcpMethod::automatic)) {
    if (D_active_.rows() < active_rows) D_active_.resize(active_rows, active_rows);
    for (Eigen::Index r = 0; r < active_rows; ++r) {
      for (Eigen::Index c = 0; c < active_rows; ++c) D_active_(r, c) = sparse_delassus(r, c);
    }
    lcp = solve_lcp(D_active_.topLeftCorner(active_rows, active_rows), b_.head(active_rows), 1e-12,
                    1.0, lcp_options_);
  }
  return lcp_into_impulses(lcp, active_rows);
}

// One step in the sparse form: the free velocity, the active set, the impulses P on it and
// q̇_{k+1}, as in the dense step with W = diag(mass) and ∂F = 0; sets rate, rate_next and the
// active rows' |∇f|_{A⁻¹}. False when the step failed (the record says why).
bool Run::sparse_step(double t_next, double dt, Eigen::Index& active_rows) {
  model_.sparse_terms(x_, terms_);
  at_next_.t = t_next;
  at_next_.q = x_.q;
  at_next_.v = x_.v;
  model_.sparse_terms(at_next_, terms_next_);
  force_evaluations_ += 2;
  v_next_ = dt * (theta_ * terms_next_.force + (1.0 - theta_) * terms_.force);
  v_next_ = v_next_.cwiseQuotient(terms_.mass);
  v_next_ += x_.v;
  if (!v_next_.allFinite()) {
    record_.status = Status::non_finite;
    record_.reason = "non-finite free velocity in the step from t = " + format_number(x_.t);
    return false;
  }
  activate(terms_.J, terms_.f, terms_.f_t, dt);
  active_rows = static_cast<Eigen::Index>(active_.size());
  if (active_rows == 0) return true;
  const auto row = [&](Eigen::Index r) { return active_[static_cast<std::size_t>(r)]; };
  for (Eigen::Index r = 0; r < active_rows; ++r) {
    // D_rr = |∇f|²_{A⁻¹}, summed as the dense step sums G W⁻¹ Gᵀ (kept unsquared for D).
    normal_square_(r) = 0.0;
    for (SparseRow it(terms_.J, row(r)); it; ++it) {
      normal_square_(r) += it.value() * (it.value() / terms_.mass(it.col()));
    }
    normal_norm_(r) = std::sqrt(normal_square_(r));
    b_(r) = terms_.J.row(row(r)).dot(v_next_) + terms_next_.f_t(row(r)) +
            restitution(normal_square_(r), rate_(row(r))) * rate_(row(r));
  }
  if (b_.head(active_rows).minCoeff() >= 0.0) {
    // Nothing approaches: P = 0 solves the LCP (and is what its solvers return).
    P_.head(active_rows).setZero();
  } else if (active_rows == 1) {
    if (!single_row_impulse(normal_square_(0))) return false;
  } else if (!sparse_lcp(active_rows)) {
    return false;
  }
  for (Eigen::Index r = 0; r < active_rows; ++r) {
    if (P_(r) == 0.0) continue;
    for (SparseRow it(terms_.J, row(r)); it; ++it) {
      v_next_(it.col()) += P_(r) * it.value() / terms_.mass(it.col());
    }
  }
  rate_next_.noalias() = terms_.J * v_next_;
  rate_next_ += terms_next_.f_t;
  return true;
}

// The dense step's smooth part: W, q̇_free (into v_next), the constraint rates and the active
// set, the impulses reset. False when the step failed (the record says why).
bool Run::dense_free_velocity(double t_next, double dt) {
  model_.modes_at(x_, modes_, switching_work_);
  model_.evaluate(x_, modes_, point_);
  model_.force_jacobians(x_, modes_, dF_dq_, dF_dv_);
  // F(t_{k+1}, ·) in the mode of the predicted end state q_k + h q̇_k, so that a force switch
  // inside the step enters the θ-average.
  predicted_.t = t_next;
  predicted_.q = x_.q + dt * x_.v;
  predicted_.v = x_.v;
  model_.modes_at(predicted_, modes_next_, switching_work_);
  at_next_.t = t_next;
  at_next_.q = x_.q;
  at_next_.v = x_.v;
  model_.free_force(at_next_, modes_next_, F_next_);
  force_evaluations_ += 2;
  // The impact law's relative velocity J q̇_{k+1} + ∂f/∂t takes ∂f/∂t at the end of the step,
  // t_{k+1}, where q̇_{k+1} is (as the Siconos kernel's MoreauJeanOSI takes ḣ of a rheonomous
  // relation); with ∂f/∂t at t_k a point resting on a moving constraint left it for single steps
  // (docs/internals.md).
  if (moving_constraints_) {
    model_.evaluate(at_next_, modes_next_, point_next_);
    ++force_evaluations_;
    rate_t_next_ = point_next_.f_t;
  } else {
    rate_t_next_ = point_.f_t;
  }

  W_ = point_.A - dt * theta_ * dF_dv_ - dt * dt * theta_ * theta_ * dF_dq_;
  W_lu_.compute(W_);
  // A zero pivot of the LU, relative to the largest (Eigen's rcond estimate reports 1 for an
  // exactly singular W).
  pivots_ = W_lu_.matrixLU().diagonal().cwiseAbs();
  if (!(pivots_.minCoeff() > 1e-15 * pivots_.maxCoeff())) {
    record_.status = Status::singular_jacobian;
    record_.reason =
        "the step's matrix W = A - h theta dF/dv - (h theta)^2 dF/dq cannot be "
        "factored (pivot ratio " +
        format_number(pivots_.minCoeff() / pivots_.maxCoeff()) + ") at t = " + format_number(x_.t);
    return false;
  }
  F_now_ = point_.Q - point_.grad_V - point_.c;  // point.free_force() without its temporary
  rhs_.noalias() = dF_dq_ * x_.v;
  rhs_ = dt * (theta_ * F_next_ + (1.0 - theta_) * F_now_ + dt * theta_ * rhs_);
  v_next_ = W_lu_.solve(rhs_);
  v_next_ += x_.v;
  if (!v_next_.allFinite()) {
    record_.status = Status::non_finite;
    record_.reason = "non-finite free velocity in the step from t = " + format_number(x_.t);
    return false;
  }

  activate(point_.J, point_.f, point_.f_t, dt);
  kinematic_impulse_.setZero();
  return true;
}

// The dense step's impulses on the active rows and the one-sided kinematic rows (P, and v_next
// from q̇_free). The equality rows E: the two-sided kinematic rows in force, with their targets
// E q̇_{k+1} + b_E = −e_E g_E(q_k, q̇_k) (e_E = 0 except for a conditional row, which takes the
// roughness law of Berezinskaya, Sorokina & Kugushev 2003 §5). v_next and every later impulse
// direction W⁻¹X are projected onto them (X ↦ W⁻¹X − W⁻¹Eᵀ (E W⁻¹ Eᵀ)⁻¹ E W⁻¹X). A conditional
// row is in force while its constraint takes an impulse in this step: it is assumed so when the
// constraint is active, and the step is solved again without it if the constraint's impulse
// comes out 0. False when the step failed (the record says why).
bool Run::dense_impulses(Eigen::Index holonomic_rows, Eigen::Index rows) {
  equality_rows_.clear();
  for (int r = one_sided_; r < model_.kinematic_count(); ++r) {
    const int cond = model_.kinematic_condition(r);
    if (cond < 0 || (std::find(active_.begin(), active_.end(), cond) != active_.end() &&
                     model_.slip_restitution(r) > -1.0)) {
      equality_rows_.push_back(r);
    }
  }
  // A case with Coulomb rows has no other kinematic row (MoreauJeanSolver::solve refuses it).
  if (!model_.info().coulomb_rows.empty()) return coulomb_impulses(holonomic_rows);
  v_free_ = v_next_;
  while (true) {
    const auto equalities = static_cast<Eigen::Index>(equality_rows_.size());
    Eigen::MatrixXd E(equalities, n_), Winv_Et;
    Eigen::VectorXd E_target(equalities);
    for (Eigen::Index j = 0; j < equalities; ++j) {
      const int r = equality_rows_[static_cast<std::size_t>(j)];
      E.row(j) = point_.a.row(r);
      const double slip = model_.kinematic_condition(r) >= 0 ? model_.slip_restitution(r) : 0.0;
      E_target(j) = (1.0 + slip) * point_.g(r);
    }
    Eigen::PartialPivLU<Eigen::MatrixXd> schur;
    v_next_ = v_free_;
    if (equalities > 0) {
      Winv_Et = W_lu_.solve(E.transpose());
      schur.compute(E * Winv_Et);
      v_next_ -= Winv_Et * schur.solve(E * (v_next_ - x_.v) + E_target);
    }
    if (rows == 0) return true;
    // The complementarity rows: the active holonomic constraints, then the one-sided kinematic
    // rows (all of them: a row with g > 0 gets P = 0).
    for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
      const int i = active_[static_cast<std::size_t>(r)];
      G_.row(r) = point_.J.row(i);
      b_(r) = point_.J.row(i).dot(v_next_) + rate_t_next_(i);
    }
    for (int r = 0; r < one_sided_; ++r) {
      G_.row(holonomic_rows + r) = point_.a.row(r);
      // g at the new velocity: a q̇_{k+1} + b = a (q̇_{k+1} − q̇_k) + g(q_k, q̇_k).
      b_(holonomic_rows + r) = point_.a.row(r).dot(v_next_ - x_.v) + point_.g(r);
    }
    // W⁻¹Gᵀ column by column through plain vectors (Eigen solves into a block through a
    // temporary), then projected onto the equality rows.
    for (Eigen::Index r = 0; r < rows; ++r) {
      rhs_ = G_.row(r).transpose();
      column_ = W_lu_.solve(rhs_);
      Winv_Gt_.col(r) = column_;
    }
    if (equalities > 0) {
      const Eigen::MatrixXd Y = Winv_Gt_.leftCols(rows);
      Winv_Gt_.leftCols(rows) = Y - Winv_Et * schur.solve(E * Y);
    }
    for (Eigen::Index r = 0; r < rows; ++r) {
      for (Eigen::Index c = 0; c < rows; ++c) D_(r, c) = G_.row(r).dot(Winv_Gt_.col(c));
    }
    for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
      const double rate = rate_(active_[static_cast<std::size_t>(r)]);
      b_(r) += restitution(D_(r, r), rate) * rate;
    }
    if (rows == 1) {
      if (!single_row_impulse(D_(0, 0))) return false;
    } else {
      ++lcp_solves_;
      const auto lcp =
          solve_lcp(D_.topLeftCorner(rows, rows), b_.head(rows), 1e-12, 1.0, lcp_options_);
      if (!lcp_into_impulses(lcp, rows)) return false;
    }
    const auto without_impulse =
        std::remove_if(equality_rows_.begin(), equality_rows_.end(), [&](int r) {
          const int cond = model_.kinematic_condition(r);
          if (cond < 0) return false;
          const auto at = std::find(active_.begin(), active_.end(), cond) - active_.begin();
          return !(P_(at) > 0.0);
        });
    if (without_impulse == equality_rows_.end()) {
      for (Eigen::Index r = 0; r < rows; ++r) v_next_ += P_(r) * Winv_Gt_.col(r);
      return true;
    }
    equality_rows_.erase(without_impulse, equality_rows_.end());
  }
}

// The impulses of a case with Coulomb rows (the header's frictional contact problem): per active
// contact k the rows 2k (its normal J_i) and 2k + 1 (its Coulomb row a_r); P_ takes the normal
// impulses, tangential_impulse_ the tangential ones. False when the step failed (the record says
// why).
bool Run::coulomb_impulses(Eigen::Index contacts) {
  if (contacts == 0) return true;
  const Eigen::Index rows = 2 * contacts;
  Eigen::MatrixXd G(rows, n_);
  Eigen::VectorXd u_free(rows), mu(contacts);
  for (Eigen::Index k = 0; k < contacts; ++k) {
    const int i = active_[static_cast<std::size_t>(k)];
    const int r = coulomb_row_[static_cast<std::size_t>(i)];
    G.row(2 * k) = point_.J.row(i);
    u_free(2 * k) = point_.J.row(i).dot(v_next_) + rate_t_next_(i);
    G.row(2 * k + 1) = point_.a.row(r);
    // g at the new velocity: a q̇_{k+1} + b = a (q̇_{k+1} − q̇_k) + g(q_k, q̇_k).
    u_free(2 * k + 1) = point_.a.row(r).dot(v_next_ - x_.v) + point_.g(r);
    mu(k) = friction_(i);
  }
  const Eigen::MatrixXd Winv_Gt = W_lu_.solve(G.transpose());
  const Eigen::MatrixXd D = G * Winv_Gt;
  for (Eigen::Index k = 0; k < contacts; ++k) {
    const double rate = rate_(active_[static_cast<std::size_t>(k)]);
    u_free(2 * k) += restitution(D(2 * k, 2 * k), rate) * rate;
  }
  ++friction_solves_;
  const auto solution = solve_friction_contact_2d(D, u_free, mu);
  if (!solution) {
    record_.status = Status::lcp_failure;
    record_.reason =
        "the frictional contact problem of " + std::to_string(contacts) +
        " contact(s) has no accepted solution (Siconos numerics' fc2d Lemke and enumeration) "
        "in the step from t = " +
        format_number(x_.t);
    return false;
  }
  if (solution->enumerated) ++friction_enumerations_;
  v_next_ += Winv_Gt * solution->r;
  tangential_impulse_.resize(contacts);
  for (Eigen::Index k = 0; k < contacts; ++k) {
    P_(k) = solution->r(2 * k);
    tangential_impulse_(k) = solution->r(2 * k + 1);
  }
  return true;
}

// The Coulomb rows' stick and slip in this step, as events where they change: a row sticks while
// its contact takes a normal impulse and its tangential one lies strictly inside the cone
// (kinematic_contact at the step's end), and slides otherwise (kinematic_release at its start).
void Run::account_slips(double t_next, Eigen::Index contacts) {
  std::vector<char>& now = sticking_now_;
  now.assign(sticking_.size(), 0);
  for (Eigen::Index k = 0; k < contacts; ++k) {
    const int i = active_[static_cast<std::size_t>(k)];
    if (step_sticks(P_(k), tangential_impulse_(k), friction_(i))) {
      now[static_cast<std::size_t>(coulomb_row_[static_cast<std::size_t>(i)])] = 1;
    }
  }
  for (const int r : model_.info().coulomb_rows) {
    const auto at = static_cast<std::size_t>(r);
    if (now[at] == sticking_[at]) continue;
    add_event({.t = now[at] != 0 ? t_next : x_.t,
               .kind = now[at] != 0 ? EventKind::kinematic_contact : EventKind::kinematic_release,
               .index = r});
    sticking_[at] = now[at];
  }
}

// One step in the dense form (steps 1–3 of the scheme above). False when it failed.
bool Run::dense_step(double t_next, double dt, Eigen::Index& holonomic_rows, Eigen::Index& rows) {
  if (!dense_free_velocity(t_next, dt)) return false;
  holonomic_rows = static_cast<Eigen::Index>(active_.size());
  rows = holonomic_rows + one_sided_;
  if (!dense_impulses(holonomic_rows, rows)) return false;
  if (rows > 0) {
    rate_next_.noalias() = point_.J * v_next_;
    rate_next_ += rate_t_next_;
    A_ldlt_.compute(point_.A);
    for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
      rhs_ = point_.J.row(active_[static_cast<std::size_t>(r)]).transpose();
      column_ = A_ldlt_.solve(rhs_);
      normal_norm_(r) = std::sqrt(point_.J.row(active_[static_cast<std::size_t>(r)]).dot(column_));
    }
  }
  return true;
}

// The step's impulses into the record: per constraint its impulse, λ = P/h and μ, the contact
// episodes' starts (an impact, a contact, an impact whose impulse persists), the impulse history.
void Run::account_impulses(double t_next, double dt, Eigen::Index holonomic_rows) {
  for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
    const int i = active_[static_cast<std::size_t>(r)];
    impulse_(i) = P_(r);
    lambda_(i) = P_(r) / dt;
    mu_(i) = lambda_(i) * normal_norm_(r);
    auto& state = episode_[static_cast<std::size_t>(i)];
    if (P_(r) > 0.0 && state == Episode::none) {
      const bool impact = rate_(i) < 0.0;
      add_event({.t = t_next,
                 .kind = impact ? EventKind::impact : EventKind::contact,
                 .index = i,
                 .rate_before = rate_(i),
                 .rate_after = rate_next_(i)});
      state = impact ? Episode::impact : Episode::open;
      if (impact) episode_ended(t_next);
    } else if (P_(r) > 0.0 && state == Episode::impact) {
      // The impulse persists after the impact step: the impact's episode goes on as a contact
      // from the end of that step (record.cpp joins a contact to the impact ending there).
      add_event({.t = x_.t, .kind = EventKind::contact, .index = i});
      state = Episode::open;
    }
    if (keep_impulses_ && P_(r) > 0.0) {
      if (impulse_history_.size() < kMaxImpulseHistory) {
        impulse_history_.push_back({{"t", t_next}, {"constraint", i}, {"impulse", P_(r)}});
      } else {
        ++impulses_not_kept_;
      }
    }
  }
  kinematic_impulse_ = P_.segment(holonomic_rows, one_sided_);
  total_impulse_ += impulse_;
}

// The episodes that end in this step: an open one ends with the last step that had an impulse,
// at this step's start; an impact's ended with its step. The one-sided kinematic rows' contacts
// and releases.
void Run::close_episodes(double t_next) {
  for (int i = 0; i < m_; ++i) {
    auto& state = episode_[static_cast<std::size_t>(i)];
    if (impulse_(i) > 0.0) continue;
    if (state == Episode::open) {
      add_event({.t = x_.t, .kind = EventKind::lift_off, .index = i});
      episode_ended(x_.t);
    }
    state = Episode::none;
  }
  for (int r = 0; r < one_sided_; ++r) {
    const bool pushes = kinematic_impulse_(r) > 0.0;
    const bool pushed = had_kinematic_impulse_[static_cast<std::size_t>(r)] != 0;
    if (pushes != pushed) {
      add_event({.t = pushes ? t_next : x_.t,
                 .kind = pushes ? EventKind::kinematic_contact : EventKind::kinematic_release,
                 .index = r});
    }
    had_kinematic_impulse_[static_cast<std::size_t>(r)] = pushes ? 1 : 0;
  }
}

// Step 4, then what the record follows at the step's end (the kinematic drift, the smallest f,
// the penetration's scale) and the trajectory's sample. False at a non-finite state.
bool Run::advance(double t_next, double dt) {
  // The step's start, for the samples between its ends (only when they are asked for).
  if (settings_.on_sample) {
    before_.t = x_.t;
    before_.q = x_.q;
    before_.v = x_.v;
  }
  x_.q += dt * (theta_ * v_next_ + (1.0 - theta_) * x_.v);
  x_.v = v_next_;
  x_.t = t_next;
  ++record_.steps;
  if (!x_.q.allFinite()) {
    record_.status = Status::non_finite;
    record_.reason = "non-finite position at t = " + format_number(x_.t);
    return false;
  }
  if (model_.kinematic_count() > 0) {
    Eigen::MatrixXd a_next;
    Eigen::VectorXd b_next;
    model_.kinematic_affine(x_.t, x_.q, a_next, b_next);
    const Eigen::VectorXd g_next = a_next * x_.v + b_next;
    for (int r = 0; r < model_.kinematic_count(); ++r) {
      if (model_.kinematic_condition(r) >= 0) continue;  // holds only in contact
      kinematic_drift_ =
          std::max(kinematic_drift_, r < one_sided_ ? -g_next(r) : std::abs(g_next(r)));
    }
  }
  model_.constraint_values(x_.t, x_.q, f_next_);
  if (!f_next_.allFinite()) {
    record_.status = Status::non_finite;
    record_.reason = "non-finite constraint value at t = " + format_number(x_.t);
    return false;
  }
  for (int i = 0; i < m_; ++i) {
    auto& slot = record_.min_constraint[static_cast<std::size_t>(i)];
    slot = std::min(slot, f_next_(i));
  }
  if (!(start_size_ > 0.0)) {
    coordinate_size_ = std::max(coordinate_size_, x_.q.lpNorm<Eigen::Infinity>());
  }
  emit(before_, x_);
  return true;
}

void Run::finish(std::chrono::steady_clock::time_point started) {
  if (record_.status == Status::ok) {
    if (auto warning = penetration_warning(record_.min_constraint, coordinate_size_)) {
      record_.warnings.push_back(std::move(*warning));
    }
  }
  record_.final_state = x_;
  record_.constraint_impulse.assign(total_impulse_.data(), total_impulse_.data() + m_);
  record_.rhs_evaluations = force_evaluations_;
  record_.diagnostics["jacobian_evaluations"] = sparse_ ? 0 : record_.steps;
  if (sparse_) record_.diagnostics["sparse_step"] = true;
  record_.diagnostics["lcp_solves"] = lcp_solves_;
  if (banded_lcp_solves_ > 0) record_.diagnostics["banded_lcp_solves"] = banded_lcp_solves_;
  record_.diagnostics["lcp_method"] = lcp_choice_;
  record_.diagnostics["lcp_iterations"] = lcp_iterations_;
  if (model_.kinematic_count() > 0) record_.diagnostics["max_kinematic_drift"] = kinematic_drift_;
  if (!model_.info().coulomb_rows.empty()) {
    record_.diagnostics["friction_contact_solves"] = friction_solves_;
    // Those Lemke's method left to the enumeration (solvers/lcp.hpp).
    record_.diagnostics["friction_contact_enumerations"] = friction_enumerations_;
  }
  if (keep_impulses_) {
    record_.diagnostics["impulse_history"] = impulse_history_;
    record_.diagnostics["impulse_history_not_kept"] = impulses_not_kept_;
  }
  finish_record(record_, model_, started, output_.seconds());
  if (events_not_kept_ > 0) {
    // The kept events tell only the start: the lift-off follows from the episodes' states.
    const bool in_contact =
        std::find(episode_.begin(), episode_.end(), Episode::open) != episode_.end();
    // Each constraint's lift-off would need the episodes that were not kept: withheld.
    withhold_lift_offs(record_);
    record_.lift_off_time = in_contact ? std::nullopt : last_episode_end_;
    record_.diagnostics["events_not_kept"] = events_not_kept_;
    record_.warnings.push_back("the record keeps the first " + std::to_string(events_kept_) +
                               " events and counted " + std::to_string(events_not_kept_) +
                               " more (diagnostics.events_not_kept): contact_episodes covers the "
                               "kept events only; lift_off_time is computed from every step, "
                               "constraint_lift_off_time is withheld");
  }
}

}  // namespace
}  // namespace moreau_jean_detail

std::optional<std::string> MoreauJeanSolver::refusal(const Model& model,
                                                     const RunSettings& /*settings*/) const {
  if (const auto why = coulomb_pairing_refusal(model)) return "--solver: moreau-jean: " + *why;
  return std::nullopt;
}

RunRecord MoreauJeanSolver::solve(const Model& model, const RunSettings& settings) const {
  const auto started = std::chrono::steady_clock::now();
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  if (!model.info().coulomb_rows.empty()) require_friction_contact_solver();
  RunRecord record = start_record(model, name(), settings);
  moreau_jean_detail::Run run(model, settings, record);
  if (!run.start(started)) return record;
  run.steps(started);
  run.finish(started);
  return record;
}

}  // namespace crbench
