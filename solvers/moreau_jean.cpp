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
         "enumeration up to 4 rows, Lemke beyond). First order; impacts, sliding and lift-off "
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
  const std::vector<ParamSpec> law = impact_law_params();
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

// The impulse history's bound (about 10 MB of JSON): the impulses past it are counted, not kept.
constexpr std::size_t kMaxImpulseHistory = 100000;

RunRecord MoreauJeanSolver::solve(const Model& model, const RunSettings& settings) const {
  // The step has no rows for bilateral holonomic constraints: refuse rather than ignore them.
  require_support(*this, model);
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;
  const double h = p.at("h");
  const double theta = p.at("theta");
  // Newton's law per active row, e from its Λ (the Kozlov wall's law; Newton's fixed e ignores
  // it): the diagonal of the step's Delassus matrix J W⁻¹ Jᵀ, which tends to J A⁻¹ Jᵀ as h → 0.
  const ImpactLaw impact_law = ImpactLaw::from(p);
  const double gamma = p.at("activation_gamma");
  const bool keep_impulses = p.at("impulse_history") >= 0.5;
  const int n = model.dof();
  const int m = model.constraint_count();

  RunRecord record = start_record(model, name(), settings);
  record.tolerances = {{"h", h}, {"theta", theta}, {"activation_gamma", gamma}};
  const std::string lcp_choice = settings.solver_choices.at("lcp");
  const LcpOptions lcp_options{.method = lcp_method(lcp_choice),
                               .pgs_tolerance = p.at("lcp_tolerance")};
  if (lcp_options.method == LcpMethod::pgs) {
    record.tolerances["lcp_tolerance"] = lcp_options.pgs_tolerance;
  }
  record.episode_definition = kStepEpisodeDefinition;
  record.min_constraint.assign(static_cast<std::size_t>(m),
                               std::numeric_limits<double>::infinity());

  State x = model.initial_state();
  if (const auto why = non_finite_start(model, x)) {
    record.status = Status::non_finite;
    record.reason = *why;
    record.final_state = x;
    return record;
  }
  // The scale the penetration is measured against: |q| at the start (a point that flies off
  // leaves it behind), or the largest |q| seen when that is 0.
  const double start_size = x.q.lpNorm<Eigen::Infinity>();
  double coordinate_size = start_size;
  const double t0 = x.t;
  const double span = settings.t_end - t0;
  const double steps_needed = std::ceil(span / h - 1e-9);
  if (steps_needed > p.at("max_steps")) {
    record.status = Status::too_many_steps;
    record.reason = format_number(steps_needed) + " steps of h = " + format_number(h) +
                    " are needed and max_steps is " + format_number(p.at("max_steps"));
    record.final_state = x;
    return record;
  }
  const long step_count = static_cast<long>(steps_needed);

  Point point, point_next;
  const bool moving_constraints = constraints_depend_on_time(model, settings.t_end);
  Eigen::VectorXd rate_t_next;  // ∂f/∂t at the end of the step (t_{k+1}, q_k)
  Eigen::MatrixXd dF_dq, dF_dv, W;
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(m);
  // Σ P over the steps per constraint: the impulse of its reaction over the run.
  Eigen::VectorXd total_impulse = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(m);
  // Each constraint's contact episode, step by step (the record's episode_definition): none; an
  // impact in the last step only (an episode of zero length, closed unless the impulse goes on);
  // or open (a contact, or an impact whose impulse persisted: resting contact after it).
  enum class Episode : char { none, impact, open };
  std::vector<Episode> episode(static_cast<std::size_t>(m), Episode::none);
  // The end of the latest episode, from every step (the record keeps at most events_kept events).
  std::optional<double> last_episode_end;
  // An impact ends at its step's end, a contact's lift-off at the step's start: within one step
  // an impact's end can come before a lift-off's, so the latest is a maximum.
  const auto episode_ended = [&](double t) {
    last_episode_end = last_episode_end ? std::max(*last_episode_end, t) : t;
  };
  long events_not_kept = 0;
  const auto events_kept = static_cast<std::size_t>(p.at("events_kept"));
  const auto add_event = [&](Event e) {
    if (record.events.size() < events_kept) {
      record.events.push_back(std::move(e));
    } else {
      ++events_not_kept;
    }
  };
  const int one_sided = model.unilateral_kinematic_count();
  Eigen::VectorXd kinematic_impulse = Eigen::VectorXd::Zero(one_sided);
  std::vector<char> had_kinematic_impulse(static_cast<std::size_t>(one_sided), 0);
  // The kinematic constraints hold at t_{k+1} only through a(q_k): |g| of the two-sided rows and
  // −min g of the one-sided ones at the step ends are reported.
  double kinematic_drift = 0.0;
  long force_evaluations = 0;
  long lcp_solves = 0;
  long lcp_iterations = 0;
  StepOutput output(settings, h);
  nlohmann::ordered_json impulse_history = nlohmann::ordered_json::array();
  long impulses_not_kept = 0;

  const auto emit = [&](const State& s) {
    if (!output.due(s.t)) return;
    TrajectorySample sample;
    sample.x = s;
    sample.f = model.constraint_values(s.t, s.q);
    sample.lambda = lambda;
    sample.mu = mu;
    sample.impulse = impulse;
    output.deliver(sample);
  };

  emit(x);
  {
    const Eigen::VectorXd f0 = model.constraint_values(x.t, x.q);
    for (int i = 0; i < m; ++i) record.min_constraint[static_cast<std::size_t>(i)] = f0(i);
  }
  // The step's workspace, sized here: a step without kinematic rows and with at most one active
  // constraint allocates nothing (tests/test_allocations.cpp); an LCP of several rows and the
  // kinematic rows' elimination still allocate their matrices.
  const int max_rows = m + one_sided;
  std::vector<int> modes, modes_next;
  modes.reserve(static_cast<std::size_t>(model.switch_count()));
  modes_next.reserve(static_cast<std::size_t>(model.switch_count()));
  Eigen::VectorXd switching_work(model.switch_count());
  State predicted{x.t, x.q, x.v};
  State at_next{x.t, x.q, x.v};
  Eigen::VectorXd F_next(n), F_now(n), rhs(n), v_next(n), v_free(n), pivots(n), column(n);
  Eigen::VectorXd rate(m), rate_next(m), f_next(m);
  Eigen::VectorXd P(max_rows), b(max_rows), normal_norm(max_rows), normal_square(max_rows);
  // The sparse form (a chain case, cases/sparse_terms.hpp) when the model has one and the step
  // needs nothing it leaves out (kinematic rows, force switches): W = A = diag(mass), and a step
  // costs O(n) plus the LCP of its active contacts. The dense workspace is then not allocated
  // (three n×n matrices at n = 1000 are 24 MB).
  SparseTerms terms, terms_next;
  const bool sparse =
      model.kinematic_count() == 0 && model.switch_count() == 0 && model.sparse_terms(x, terms);
  const Eigen::Index dense_n = sparse ? 0 : n;
  const Eigen::Index dense_rows = sparse ? 0 : max_rows;
  Eigen::MatrixXd G(dense_rows, dense_n), Winv_Gt(dense_n, dense_rows), D(dense_rows, dense_rows);
  Eigen::MatrixXd D_active;  // the sparse step's Delassus matrix, sized at its first LCP
  BandedSymmetric D_band;    // the same, banded (a chain)
  std::vector<Eigen::Index> column_low, column_high;
  long banded_lcp_solves = 0;
  Eigen::LDLT<Eigen::MatrixXd> A_ldlt(dense_n);
  Eigen::PartialPivLU<Eigen::MatrixXd> W_lu(dense_n);
  std::vector<int> active, equality_rows;
  active.reserve(static_cast<std::size_t>(m));
  equality_rows.reserve(static_cast<std::size_t>(model.kinematic_count()));
  // One step in the sparse form: the free velocity, the active set, the impulses P on it and
  // q̇_{k+1}, as in the dense step with W = diag(mass) and ∂F = 0; sets rate, rate_next and the
  // active rows' |∇f|_{A⁻¹}. False when the step failed (record.status says why).
  using SparseRow = Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator;
  // The bandwidth of D for the first `rows` active rows, or −1 when their column ranges do not
  // move right with the row (D is then not known to be banded): D_rc ≠ 0 needs the ranges of r
  // and c to overlap, and with monotone ranges the rows that overlap r's follow it.
  const auto row_band = [&](Eigen::Index rows) {
    column_low.resize(static_cast<std::size_t>(rows));
    column_high.resize(static_cast<std::size_t>(rows));
    for (Eigen::Index r = 0; r < rows; ++r) {
      Eigen::Index low = n, high = -1;
      for (SparseRow it(terms.J, active[static_cast<std::size_t>(r)]); it; ++it) {
        low = std::min<Eigen::Index>(low, it.col());
        high = std::max<Eigen::Index>(high, it.col());
      }
      const auto at = static_cast<std::size_t>(r);
      column_low[at] = low;
      column_high[at] = high;
      if (r > 0 && (low < column_low[at - 1] || high < column_high[at - 1])) return -1;
    }
    Eigen::Index band = 0, last = 0;
    for (Eigen::Index r = 0; r < rows; ++r) {
      last = std::max(last, r);
      while (last + 1 < rows && column_low[static_cast<std::size_t>(last + 1)] <=
                                    column_high[static_cast<std::size_t>(r)]) {
        ++last;
      }
      band = std::max(band, last - r);
    }
    return static_cast<int>(band);
  };
  const auto sparse_step = [&](double t_next, double dt, Eigen::Index& active_rows) {
    model.sparse_terms(x, terms);
    at_next.t = t_next;
    at_next.q = x.q;
    at_next.v = x.v;
    model.sparse_terms(at_next, terms_next);
    force_evaluations += 2;
    v_next = dt * (theta * terms_next.force + (1.0 - theta) * terms.force);
    v_next = v_next.cwiseQuotient(terms.mass);
    v_next += x.v;
    if (!v_next.allFinite()) {
      record.status = Status::non_finite;
      record.reason = "non-finite free velocity in the step from t = " + format_number(x.t);
      return false;
    }
    rate.noalias() = terms.J * x.v;
    rate += terms.f_t;
    active.clear();
    for (int i = 0; i < m; ++i) {
      if (terms.f(i) + gamma * dt * rate(i) <= 0.0) active.push_back(i);
    }
    impulse.setZero();
    lambda.setZero();
    mu.setZero();
    active_rows = static_cast<Eigen::Index>(active.size());
    if (active_rows == 0) return true;
    const auto row = [&](Eigen::Index r) { return active[static_cast<std::size_t>(r)]; };
    for (Eigen::Index r = 0; r < active_rows; ++r) {
      // D_rr = |∇f|²_{A⁻¹}, summed as the dense step sums G W⁻¹ Gᵀ (kept unsquared for D).
      normal_square(r) = 0.0;
      for (SparseRow it(terms.J, row(r)); it; ++it) {
        normal_square(r) += it.value() * (it.value() / terms.mass(it.col()));
      }
      normal_norm(r) = std::sqrt(normal_square(r));
      b(r) = terms.J.row(row(r)).dot(v_next) + terms_next.f_t(row(r)) +
             impact_law.restitution(normal_square(r)) * rate(row(r));
    }
    if (b.head(active_rows).minCoeff() >= 0.0) {
      // Nothing approaches: P = 0 solves the LCP (and is what its solvers return).
      P.head(active_rows).setZero();
    } else if (active_rows == 1) {
      const double D00 = normal_square(0);
      if (!(D00 > 0.0)) {
        record.status = Status::singular_active_set;
        record.reason = "J W^-1 J^T = " + format_number(D00) + " at t = " + format_number(x.t);
        return false;
      }
      P(0) = std::max(0.0, -b(0) / D00);
    } else {
      // D = J_I A⁻¹ J_Iᵀ from the rows' nonzeros (rows that share no column give 0). Where the
      // rows' column ranges move right with the row (a chain), D is banded: row r meets only the
      // rows whose ranges overlap its own, and the banded LCP makes the step O(n).
      const auto entry = [&](Eigen::Index r, Eigen::Index c) {
        double sum = 0.0;
        SparseRow a(terms.J, row(r)), z(terms.J, row(c));
        while (a && z) {
          if (a.col() < z.col()) {
            ++a;
          } else if (z.col() < a.col()) {
            ++z;
          } else {
            sum += a.value() * (z.value() / terms.mass(a.col()));
            ++a;
            ++z;
          }
        }
        return sum;
      };
      const int band =
          lcp_options.method == LcpMethod::automatic || lcp_options.method == LcpMethod::banded
              ? row_band(active_rows)
              : -1;
      const bool banded =
          band >= 0 && active_rows > kLcpEnumerationSize &&
          (lcp_options.method == LcpMethod::banded || band <= kLcpBandedMaxBandwidth);
      ++lcp_solves;
      std::optional<LcpSolution> lcp;
      if (banded) {
        D_band.resize(active_rows, band);
        for (Eigen::Index r = 0; r < active_rows; ++r) {
          for (Eigen::Index d = 0; d <= band && d <= r; ++d) D_band.lower(r, d) = entry(r, r - d);
        }
        lcp = solve_banded_lcp(D_band, b.head(active_rows), 1e-12, 1.0);
        ++banded_lcp_solves;
      }
      // auto: Lemke's method where the banded one meets a subsystem that is not positive definite.
      if (!banded || (!lcp && lcp_options.method == LcpMethod::automatic)) {
        if (D_active.rows() < active_rows) D_active.resize(active_rows, active_rows);
        for (Eigen::Index r = 0; r < active_rows; ++r) {
          for (Eigen::Index c = 0; c < active_rows; ++c) D_active(r, c) = entry(r, c);
        }
        lcp = solve_lcp(D_active.topLeftCorner(active_rows, active_rows), b.head(active_rows),
                        1e-12, 1.0, lcp_options);
      }
      if (!lcp) {
        record.status = Status::lcp_failure;
        record.reason = "no impulse solves the step complementarity at t = " + format_number(x.t);
        return false;
      }
      P.head(active_rows) = lcp->x;
      lcp_iterations += lcp->iterations;
    }
    for (Eigen::Index r = 0; r < active_rows; ++r) {
      if (P(r) == 0.0) continue;
      for (SparseRow it(terms.J, row(r)); it; ++it) {
        v_next(it.col()) += P(r) * it.value() / terms.mass(it.col());
      }
    }
    rate_next.noalias() = terms.J * v_next;
    rate_next += terms_next.f_t;
    return true;
  };

  const WallTimeBudget wall_time(started, settings.max_wall_time, settings.on_progress);
  for (long k = 0; k < step_count; ++k) {
    // Every step (a clock read, against a step of microseconds to tens of milliseconds: one
    // look per 256 steps let ball-chain n = 1000, 33 ms a step, run 34 s past a 0.5 s bound).
    if (stop_at_wall_time(wall_time, x.t, record)) break;
    const double t_next =
        k + 1 == step_count ? settings.t_end : t0 + static_cast<double>(k + 1) * h;
    const double dt = t_next - x.t;
    Eigen::Index holonomic_rows = 0;
    Eigen::Index rows = 0;
    bool failed = false;
    if (sparse) {
      failed = !sparse_step(t_next, dt, holonomic_rows);
      rows = holonomic_rows;
    } else {
      model.modes_at(x, modes, switching_work);
      model.evaluate(x, modes, point);
      model.force_jacobians(x, modes, dF_dq, dF_dv);
      // F(t_{k+1}, ·) in the mode of the predicted end state q_k + h q̇_k, so that a force switch
      // inside the step enters the θ-average.
      predicted.t = t_next;
      predicted.q = x.q + dt * x.v;
      predicted.v = x.v;
      model.modes_at(predicted, modes_next, switching_work);
      at_next.t = t_next;
      at_next.q = x.q;
      at_next.v = x.v;
      model.free_force(at_next, modes_next, F_next);
      force_evaluations += 2;
      // The impact law's relative velocity J q̇_{k+1} + ∂f/∂t takes ∂f/∂t at the end of the
      // step, t_{k+1}, where q̇_{k+1} is (as the Siconos kernel's MoreauJeanOSI takes ḣ of a
      // rheonomous relation). With ∂f/∂t at t_k the point resting on vibrating-table left it for
      // single steps (32 events at h = 1e-3, the lift-off at 0.072 against the classical 0.0823;
      // now 2 events and 0.082).
      if (moving_constraints) {
        model.evaluate(at_next, modes_next, point_next);
        ++force_evaluations;
        rate_t_next = point_next.f_t;
      } else {
        rate_t_next = point.f_t;
      }

      W = point.A - dt * theta * dF_dv - dt * dt * theta * theta * dF_dq;
      W_lu.compute(W);
      // A zero pivot of the LU, relative to the largest (Eigen's rcond estimate reports 1 for an
      // exactly singular W).
      pivots = W_lu.matrixLU().diagonal().cwiseAbs();
      if (!(pivots.minCoeff() > 1e-15 * pivots.maxCoeff())) {
        record.status = Status::singular_jacobian;
        record.reason =
            "the step's matrix W = A - h theta dF/dv - (h theta)^2 dF/dq cannot be "
            "factored (pivot ratio " +
            format_number(pivots.minCoeff() / pivots.maxCoeff()) + ") at t = " + format_number(x.t);
        break;
      }
      F_now = point.Q - point.grad_V - point.c;  // point.free_force() without its temporary
      rhs.noalias() = dF_dq * x.v;
      rhs = dt * (theta * F_next + (1.0 - theta) * F_now + dt * theta * rhs);
      v_next = W_lu.solve(rhs);
      v_next += x.v;
      if (!v_next.allFinite()) {
        record.status = Status::non_finite;
        record.reason = "non-finite free velocity in the step from t = " + format_number(x.t);
        break;
      }

      rate.noalias() = point.J * x.v;
      rate += point.f_t;
      active.clear();
      for (int i = 0; i < m; ++i) {
        if (point.f(i) + gamma * dt * rate(i) <= 0.0) active.push_back(i);
      }
      impulse.setZero();
      lambda.setZero();
      mu.setZero();
      kinematic_impulse.setZero();
      // The equality rows E: the two-sided kinematic rows in force, with their targets
      // E q̇_{k+1} + b_E = −e_E g_E(q_k, q̇_k) (e_E = 0 except for a conditional row, which takes the
      // roughness law of Berezinskaya, Sorokina & Kugushev 2003 §5). v_next and every later
      // impulse direction W⁻¹X are projected onto them (X ↦ W⁻¹X − W⁻¹Eᵀ (E W⁻¹ Eᵀ)⁻¹ E W⁻¹X).
      // A conditional row is in force while its constraint takes an impulse in this step: it is
      // assumed so when the constraint is active, and the step is solved again without it if the
      // constraint's impulse comes out 0.
      equality_rows.clear();
      for (int r = one_sided; r < model.kinematic_count(); ++r) {
        const int cond = model.kinematic_condition(r);
        if (cond < 0 || (std::find(active.begin(), active.end(), cond) != active.end() &&
                         model.slip_restitution(r) > -1.0)) {
          equality_rows.push_back(r);
        }
      }
      v_free = v_next;
      holonomic_rows = static_cast<Eigen::Index>(active.size());
      rows = holonomic_rows + one_sided;

      while (true) {
        const auto equalities = static_cast<Eigen::Index>(equality_rows.size());
        Eigen::MatrixXd E(equalities, n), Winv_Et;
        Eigen::VectorXd E_target(equalities);
        for (Eigen::Index j = 0; j < equalities; ++j) {
          const int r = equality_rows[static_cast<std::size_t>(j)];
          E.row(j) = point.a.row(r);
          const double slip = model.kinematic_condition(r) >= 0 ? model.slip_restitution(r) : 0.0;
          E_target(j) = (1.0 + slip) * point.g(r);
        }
        Eigen::PartialPivLU<Eigen::MatrixXd> schur;
        v_next = v_free;
        if (equalities > 0) {
          Winv_Et = W_lu.solve(E.transpose());
          schur.compute(E * Winv_Et);
          v_next -= Winv_Et * schur.solve(E * (v_next - x.v) + E_target);
        }
        if (rows == 0) break;
        // The complementarity rows: the active holonomic constraints, then the one-sided
        // kinematic rows (all of them: a row with g > 0 gets P = 0).
        for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
          const int i = active[static_cast<std::size_t>(r)];
          G.row(r) = point.J.row(i);
          b(r) = point.J.row(i).dot(v_next) + rate_t_next(i);
        }
        for (int r = 0; r < one_sided; ++r) {
          G.row(holonomic_rows + r) = point.a.row(r);
          // g at the new velocity: a q̇_{k+1} + b = a (q̇_{k+1} − q̇_k) + g(q_k, q̇_k).
          b(holonomic_rows + r) = point.a.row(r).dot(v_next - x.v) + point.g(r);
        }
        // W⁻¹Gᵀ column by column through plain vectors (Eigen solves into a block through a
        // temporary), then projected onto the equality rows.
        for (Eigen::Index r = 0; r < rows; ++r) {
          rhs = G.row(r).transpose();
          column = W_lu.solve(rhs);
          Winv_Gt.col(r) = column;
        }
        if (equalities > 0) {
          const Eigen::MatrixXd Y = Winv_Gt.leftCols(rows);
          Winv_Gt.leftCols(rows) = Y - Winv_Et * schur.solve(E * Y);
        }
        for (Eigen::Index r = 0; r < rows; ++r) {
          for (Eigen::Index c = 0; c < rows; ++c) D(r, c) = G.row(r).dot(Winv_Gt.col(c));
        }
        for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
          b(r) += impact_law.restitution(D(r, r)) * rate(active[static_cast<std::size_t>(r)]);
        }
        if (rows == 1) {
          if (!(D(0, 0) > 0.0)) {
            record.status = Status::singular_active_set;
            record.reason =
                "J W^-1 J^T = " + format_number(D(0, 0)) + " at t = " + format_number(x.t);
            failed = true;
            break;
          }
          P(0) = std::max(0.0, -b(0) / D(0, 0));
        } else {
          ++lcp_solves;
          const auto lcp =
              solve_lcp(D.topLeftCorner(rows, rows), b.head(rows), 1e-12, 1.0, lcp_options);
          if (!lcp) {
            record.status = Status::lcp_failure;
            record.reason =
                "no impulse solves the step complementarity at t = " + format_number(x.t);
            failed = true;
            break;
          }
          P.head(rows) = lcp->x;
          lcp_iterations += lcp->iterations;
        }
        const auto without_impulse =
            std::remove_if(equality_rows.begin(), equality_rows.end(), [&](int r) {
              const int cond = model.kinematic_condition(r);
              if (cond < 0) return false;
              const auto at = std::find(active.begin(), active.end(), cond) - active.begin();
              return !(P(at) > 0.0);
            });
        if (without_impulse == equality_rows.end()) {
          for (Eigen::Index r = 0; r < rows; ++r) v_next += P(r) * Winv_Gt.col(r);
          break;
        }
        equality_rows.erase(without_impulse, equality_rows.end());
      }
      if (!failed && rows > 0) {
        rate_next.noalias() = point.J * v_next;
        rate_next += rate_t_next;
        A_ldlt.compute(point.A);
        for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
          rhs = point.J.row(active[static_cast<std::size_t>(r)]).transpose();
          column = A_ldlt.solve(rhs);
          normal_norm(r) = std::sqrt(point.J.row(active[static_cast<std::size_t>(r)]).dot(column));
        }
      }
    }
    if (failed) break;
    if (rows > 0) {
      for (Eigen::Index r = 0; r < holonomic_rows; ++r) {
        const int i = active[static_cast<std::size_t>(r)];
        impulse(i) = P(r);
        lambda(i) = P(r) / dt;
        mu(i) = lambda(i) * normal_norm(r);
        auto& state = episode[static_cast<std::size_t>(i)];
        if (P(r) > 0.0 && state == Episode::none) {
          const bool impact = rate(i) < 0.0;
          add_event({.t = t_next,
                     .kind = impact ? EventKind::impact : EventKind::contact,
                     .index = i,
                     .rate_before = rate(i),
                     .rate_after = rate_next(i)});
          state = impact ? Episode::impact : Episode::open;
          if (impact) episode_ended(t_next);
        } else if (P(r) > 0.0 && state == Episode::impact) {
          // The impulse persists after the impact step: the impact's episode goes on as a contact
          // from the end of that step (record.cpp joins a contact to the impact ending there).
          add_event({.t = x.t, .kind = EventKind::contact, .index = i});
          state = Episode::open;
        }
        if (keep_impulses && P(r) > 0.0) {
          if (impulse_history.size() < kMaxImpulseHistory) {
            impulse_history.push_back({{"t", t_next}, {"constraint", i}, {"impulse", P(r)}});
          } else {
            ++impulses_not_kept;
          }
        }
      }
      kinematic_impulse = P.segment(holonomic_rows, one_sided);
      total_impulse += impulse;
    }
    for (int i = 0; i < m; ++i) {
      // An open episode ends with the last step that had an impulse, at this step's start; an
      // impact's ended with its step.
      auto& state = episode[static_cast<std::size_t>(i)];
      if (impulse(i) > 0.0) continue;
      if (state == Episode::open) {
        add_event({.t = x.t, .kind = EventKind::lift_off, .index = i});
        episode_ended(x.t);
      }
      state = Episode::none;
    }
    for (int r = 0; r < one_sided; ++r) {
      const bool pushes = kinematic_impulse(r) > 0.0;
      const bool pushed = had_kinematic_impulse[static_cast<std::size_t>(r)] != 0;
      if (pushes != pushed) {
        add_event({.t = pushes ? t_next : x.t,
                   .kind = pushes ? EventKind::kinematic_contact : EventKind::kinematic_release,
                   .index = r});
      }
      had_kinematic_impulse[static_cast<std::size_t>(r)] = pushes ? 1 : 0;
    }

    x.q += dt * (theta * v_next + (1.0 - theta) * x.v);
    x.v = v_next;
    x.t = t_next;
    ++record.steps;
    if (!x.q.allFinite()) {
      record.status = Status::non_finite;
      record.reason = "non-finite position at t = " + format_number(x.t);
      break;
    }

    if (model.kinematic_count() > 0) {
      Eigen::MatrixXd a_next;
      Eigen::VectorXd b_next;
      model.kinematic_affine(x.t, x.q, a_next, b_next);
      const Eigen::VectorXd g_next = a_next * x.v + b_next;
      for (int r = 0; r < model.kinematic_count(); ++r) {
        if (model.kinematic_condition(r) >= 0) continue;  // holds only in contact
        kinematic_drift =
            std::max(kinematic_drift, r < one_sided ? -g_next(r) : std::abs(g_next(r)));
      }
    }
    model.constraint_values(x.t, x.q, f_next);
    if (!f_next.allFinite()) {
      record.status = Status::non_finite;
      record.reason = "non-finite constraint value at t = " + format_number(x.t);
      break;
    }
    for (int i = 0; i < m; ++i) {
      auto& slot = record.min_constraint[static_cast<std::size_t>(i)];
      slot = std::min(slot, f_next(i));
    }
    if (!(start_size > 0.0))
      coordinate_size = std::max(coordinate_size, x.q.lpNorm<Eigen::Infinity>());
    emit(x);
  }
  if (record.status == Status::ok) {
    if (auto warning = penetration_warning(record.min_constraint, coordinate_size)) {
      record.warnings.push_back(std::move(*warning));
    }
  }

  record.final_state = x;
  record.constraint_impulse.assign(total_impulse.data(), total_impulse.data() + m);
  record.rhs_evaluations = force_evaluations;
  record.diagnostics["jacobian_evaluations"] = sparse ? 0 : record.steps;
  if (sparse) record.diagnostics["sparse_step"] = true;
  record.diagnostics["lcp_solves"] = lcp_solves;
  if (banded_lcp_solves > 0) record.diagnostics["banded_lcp_solves"] = banded_lcp_solves;
  record.diagnostics["lcp_method"] = lcp_choice;
  record.diagnostics["lcp_iterations"] = lcp_iterations;
  if (model.kinematic_count() > 0) record.diagnostics["max_kinematic_drift"] = kinematic_drift;
  if (keep_impulses) {
    record.diagnostics["impulse_history"] = impulse_history;
    record.diagnostics["impulse_history_not_kept"] = impulses_not_kept;
  }
  finish_record(record, model, started, output.seconds());
  if (events_not_kept > 0) {
    // The kept events tell only the start: the lift-off follows from the episodes' states.
    const bool in_contact =
        std::find(episode.begin(), episode.end(), Episode::open) != episode.end();
    record.lift_off_time = in_contact ? std::nullopt : last_episode_end;
    record.diagnostics["events_not_kept"] = events_not_kept;
    record.warnings.push_back("the record keeps the first " + std::to_string(events_kept) +
                              " events and counted " + std::to_string(events_not_kept) +
                              " more (diagnostics.events_not_kept): contact_episodes covers the "
                              "kept events only; lift_off_time is computed from every step");
  }
  return record;
}

}  // namespace crbench
