// The (α,β,γ)N realization (Deryabin & Kozlov 1995 (1.5)–(1.8)). Inside f_k < 0 the free system has
//   T_N = T + αN/2 ḟ_k²,  V_N = V + γN/2 f_k²,  Φ_N = βN/2 ḟ_k²,
// and Lagrange's equations (1.8) reduce to (the ḟ ∂ḟ/∂q terms of T_N cancel)
//   A q̈ + c = Q − ∂V/∂q + Σ_k J_kᵀ λ_k,  λ_k = −N(α f̈_k + β ḟ_k + γ f_k),  f̈_k = J_k q̈ + d_k,
// i.e. (A + αN Σ J_kᵀJ_k) q̈ = F − N Σ J_kᵀ(α d_k + β ḟ_k + γ f_k). Outside, (1.9): the free
// equations. Interaction `medium`: λ_k of either sign (the medium can hold the system);
// `obstacle`: the reaction acts only while it pushes, λ_k > 0 (Deryabin & Kozlov 1995, remark after
// (1.9) and end of §6). The Kozlov impact preset (Kozlov 1992 §5) has stiffness κN and damping
// 2k√N: it is (0, 2k/√N, κ) in this notation.
//
// Integration: the right-hand side is smooth between events, and events are located on the
// dense output: entry into and exit from the medium (f_k = 0), start and end of pushing for the
// obstacle (the unclipped λ_k = 0), force switches. With α = 0 the normal motion in the medium has
// time scales 1/√(γN) and 1/(βN): that phase is integrated by Odeint's rosenbrock4 method (the
// L-stable, stiffly accurate RODAS-type coefficients, with dense output; ported to Eigen in
// solvers/rosenbrock.hpp, see why there) with the exact Jacobian of the right-hand side by
// automatic differentiation (Model::evaluate_dual), except where the spring is underdamped
// (β²N w ≤ 4γ, the undamped penalty and the Kozlov impact among them): there the phase is an
// oscillation of frequency √(γN w) that must be followed period by period, and the order-8
// DOP853 (solvers/dop853.hpp) takes tens of steps per period where the Rosenbrock method takes
// thousands. Elsewhere — free flight, obstacle not pushing, α > 0 (normal time scale √(α/γ),
// independent of N) — dopri5.
// Kinematic constraints g = a q̇ + b (Kozlov 1992 §2–3) are realized everywhere, by added mass
// αN g²/2 and friction βN g²/2 (realization_dynamics.hpp, kinematic_dynamics); both integrators
// then work in the velocity chart (q, N g, q̇_F) of solvers/velocity_chart.hpp, where neither the
// conditioning nor the step size depends on N. A one-sided row a q̇ + b ≥ 0 is realized by the
// one-sided friction −βN min(g, 0) aᵀ: it engages where ν = N g crosses 0 downward and
// disengages where ν returns to 0 (events on the chart's ν).
#include "crbench/solvers/realization.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "crbench/cases/sparse_terms.hpp"
#include "crbench/solvers/dop853.hpp"
#include "crbench/solvers/dopri5.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/impulse_quadrature.hpp"
#include "crbench/solvers/lcp.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/phase.hpp"
#include "crbench/solvers/realization_dynamics.hpp"
#include "crbench/solvers/rosenbrock.hpp"

namespace crbench {
// Named, and anonymous inside: the unity build compiles this file in one unit with other
// solvers whose helpers have the same names (Options, Run, OdeState).
namespace realization_detail {
namespace {

using OdeState = std::vector<double>;

struct Options {
  double N;
  Medium medium;
  double slip_damping;  // β_t N: the friction of conditional kinematic rows in contact
  double event_time_tol;
  double max_steps;
  double max_events;
  double max_step_fraction;
  double atol_effective;  // positions (and every component in the non-stiff phases)
  double atol_velocity;   // velocities in the stiff phases
  // Underdamped spring phases by DOP853 (false: by the Rosenbrock method, as the stiff ones).
  bool explicit_oscillation;
  // The unilateral constraints left ideal (--realize), one flag each (empty: none), with their
  // impact law and contact tolerances.
  std::vector<char> ideal = {};
  double ideal_restitution = 0.0;
  double distance_tol = 0.0;
  double velocity_tol = 0.0;
};

// The steps of the stiff phases by kind, for the record.
struct OscillationCounts {
  long stiff_steps = 0;        // by the Rosenbrock method
  long oscillatory_steps = 0;  // by DOP853, following an underdamped spring's oscillation
  long switches = 0;           // DOP853 phases handed to the Rosenbrock method
};

// DOP853 while the oscillation sets the step; once a damped one has died out the step is set by
// the stability of the explicit method and the L-stable Rosenbrock method goes on from the same
// point, with steps that no longer follow the period (a dense stepper, solvers/dense_stepper.hpp).
// Two signs of it: Hairer's test (Dop853Dense::stability_bound), which looks for h·ρ above 6.1,
// the method's bound on the negative real axis, and misses the complex pair −ζω ± iω√(1 − ζ²) of
// an underdamped mode, whose bound is nearer; and accepted steps of more than kUnresolvedRadians
// of the oscillation (|hλ| = hω), three in a row: DOP853 follows an oscillation that is still
// there at tenths of a radian a step, so such steps no longer resolve one, and only its decay
// below the tolerance lets them pass. docs/internals.md has the measurements.
class OscillationThenDecay {
 public:
  // The system: the spring's right-hand side for DOP853, the pair (rhs, jac) for Rosenbrock.
  template <class Spring, class Stiff>
  struct System {
    Spring& spring;
    Stiff& stiff;
  };
  OscillationThenDecay(Dop853Dense& oscillation, RosenbrockDense& decayed, double omega,
                       OscillationCounts& counts)
      : oscillation_(oscillation), decayed_(decayed), omega_(omega), counts_(counts) {}

  void initialize(const Eigen::VectorXd& y0, double t0, double dt0) {
    oscillation_.initialize(y0, t0, dt0);
    stiff_ = false;
    unresolved_ = 0;
  }
  template <class Spring, class Stiff>
  std::pair<double, double> do_step(System<Spring, Stiff>& system) {
    if (!stiff_ && (oscillation_.stability_bound() || unresolved_ >= 3)) {
      stiff_ = true;
      ++counts_.switches;
      decayed_.initialize(oscillation_.current_state(), oscillation_.current_time(),
                          oscillation_.step_size());
    }
    if (stiff_) {
      ++counts_.stiff_steps;
      return decayed_.do_step(system.stiff);
    }
    ++counts_.oscillatory_steps;
    const std::pair<double, double> span = oscillation_.do_step(system.spring);
    unresolved_ = (span.second - span.first) * omega_ > kUnresolvedRadians ? unresolved_ + 1 : 0;
    return span;
  }
  void calc_state(double t, Eigen::VectorXd& y) const {
    if (stiff_) {
      decayed_.calc_state(t, y);
    } else {
      oscillation_.calc_state(t, y);
    }
  }
  double current_time() const {
    return stiff_ ? decayed_.current_time() : oscillation_.current_time();
  }
  double step_size() const { return stiff_ ? decayed_.step_size() : oscillation_.step_size(); }
  const Eigen::VectorXd& current_state() const {
    return stiff_ ? decayed_.current_state() : oscillation_.current_state();
  }

 private:
  static constexpr double kUnresolvedRadians = 2.0;
  Dop853Dense& oscillation_;
  RosenbrockDense& decayed_;
  double omega_;
  OscillationCounts& counts_;
  bool stiff_ = false;
  int unresolved_ = 0;
};

class Run {
 public:
  Run(const Model& model, const RunSettings& settings, const Options& options, RunRecord& record)
      : model_(model),
        settings_(settings),
        opt_(options),
        rec_(record),
        n_(model.dof()),
        m_(model.constraint_count()) {
    for (const int r : model.info().coulomb_rows) coulomb_.push_back(r);
    std::sort(coulomb_.begin(), coulomb_.end());
    cone_.constraint.assign(static_cast<std::size_t>(model.kinematic_count()), -1);
    cone_.mu.assign(static_cast<std::size_t>(model.kinematic_count()), 0.0);
    for (const int r : coulomb_) {
      cone_.constraint[static_cast<std::size_t>(r)] = model.kinematic_condition(r);
      cone_.mu[static_cast<std::size_t>(r)] = model.friction_coefficient(r);
    }
    cone_.pushing = &pushing_;
    sliding_.assign(coulomb_.size(), 0);
  }

  void execute() {
    State x = model_.initial_state();
    modes_ = model_.modes_at(x);
    in_medium_.assign(static_cast<std::size_t>(m_), 0);
    pushing_.assign(static_cast<std::size_t>(m_), 0);
    episode_depth_.assign(static_cast<std::size_t>(m_), std::numeric_limits<double>::infinity());
    entry_time_.assign(static_cast<std::size_t>(m_), x.t);
    rec_.min_constraint.assign(static_cast<std::size_t>(m_),
                               std::numeric_limits<double>::infinity());
    engaged_.assign(static_cast<std::size_t>(model_.kinematic_count()), 1);
    sparse_rhs_ = opt_.medium.mass == 0.0 && model_.kinematic_count() == 0 &&
                  model_.switch_count() == 0 && !mixed_ && model_.sparse_terms(x, sparse_terms_);
    // Its Jacobian too where the model gives the Hessians (no bound on n, unlike the AD one).
    sparse_jacobian_ = sparse_rhs_ && model_.sparse_hessians(x, sparse_terms_);
    if (sparse_rhs_) rec_.diagnostics["sparse_right_hand_side"] = true;
    if (sparse_jacobian_) rec_.diagnostics["sparse_jacobian"] = true;
    end_run_on_failure(rec_, [&] {
      impulse_.start(m_, x.t);  // sized for the impulses of ideal impacts at the start
      if (mixed_) resolve_ideal(x, {});
      classify(x);
      classify_kinematic(x);
      classify_friction(x, {});
      note_unresolved_start(x);
      update_minimum(model_.constraint_values(x.t, x.q));
      while (x.t < settings_.t_end) {
        const PhaseEnd end = integrate_phase(x);
        x = end.x;
        update_minimum(model_.constraint_values(x.t, x.q));
        if (end.horizon) break;
        emit(x, "event-");
        std::vector<int> leaving;
        for (const Eigen::Index i : end.crossed) {
          if (i < m_ && is_ideal(static_cast<int>(i))) {
            release_if_held(x, static_cast<int>(i), leaving);
            continue;
          }
          // An entry or exit decides whether the obstacle pushes (enter, apply_event); its
          // pushing function crossing 0 at the same time is the same event (the undamped
          // penalty spring: f = 0 and λ = −Nγf = 0 together at the exit).
          const bool part_of_entry_or_exit =
              i >= m_ && i < 2 * m_ &&
              std::find(end.crossed.begin(), end.crossed.end(), i - m_) != end.crossed.end();
          if (!part_of_entry_or_exit) apply_event(x, i);
        }
        if (mixed_) resolve_ideal(x, leaving);
        classify_friction(x, end.crossed);
        emit(x, "event+");
        if (static_cast<double>(rec_.events.size()) > opt_.max_events) {
          throw RunFailure{Status::too_many_events, "more than " + format_number(opt_.max_events) +
                                                        " events before the horizon"};
        }
      }
    });
    // Where the run failed inside a phase, the state it reached there, not the phase's start.
    rec_.final_state = rec_.status != Status::ok && counters_.reached ? *counters_.reached : x;
    if (rec_.status == Status::ok) note_unresolved_depth(x);
    rec_.constraint_impulse.assign(impulse_.total().data(),
                                   impulse_.total().data() + impulse_.total().size());
    rec_.rhs_evaluations = rhs_evaluations_;
    rec_.diagnostics["impulse_quadrature_evaluations"] = impulse_.evaluations();
    const OscillationCounts& counts = oscillation_counts_;
    rec_.diagnostics["stiff_steps"] = counts.stiff_steps;
    rec_.diagnostics["oscillatory_steps"] = counts.oscillatory_steps;
    rec_.diagnostics["oscillation_decayed"] = counts.switches;
    rec_.diagnostics["nonstiff_steps"] =
        counters_.steps - counts.stiff_steps - counts.oscillatory_steps;
    rec_.diagnostics["rejected_steps"] = rejected_steps();
    if (steps_at_time_resolution_ > 0) {
      rec_.diagnostics["steps_at_time_resolution"] = steps_at_time_resolution_;
      rec_.warnings.push_back(
          std::to_string(steps_at_time_resolution_) +
          " stiff steps (diagnostics.steps_at_time_resolution) were taken at the resolution of t " +
          "(" + format_number(RosenbrockDense::kResolutionSteps) +
          " spacings of doubles) with an error estimate above the tolerance: a transient of the "
          "medium is faster than t can follow; the L-stable method damps it, but its path "
          "inside the transient is not resolved");
    }
    rec_.diagnostics["jacobian_evaluations"] = jacobian_evaluations_;
    if (model_.kinematic_count() > 0) rec_.diagnostics["chart_changes"] = chart_changes_;
    rec_.diagnostics["factorizations"] = jacobian_evaluations_;
    rec_.diagnostics["event_function_evaluations"] = probe_evaluations_;
    rec_.diagnostics["max_event_bracket"] = counters_.max_bracket;
    record_dips(counters_, first_dip_function_, rec_);
    rec_.steps = counters_.steps;
    if (round_off_exits_ > 0) rec_.diagnostics["round_off_exits_ignored"] = round_off_exits_;
    if (exit_round_off_) {
      rec_.diagnostics["exit_time_round_off"] = *exit_round_off_;
      const double span = settings_.t_end - model_.initial_state().t;
      if (!(*exit_round_off_ <= kExitRoundOffWarning * span)) {
        rec_.warnings.push_back(
            "an exit time is uncertain by at least " + format_number(*exit_round_off_) +
            " (diagnostics.exit_time_round_off): the constraint's rate at the exit is so small "
            "that the round-off of f, computed from coordinates of order 1, moves it; the "
            "realization's numbers are not reliable at this N");
      }
    }
  }

  double output_seconds() const { return output_.seconds(); }

 private:
  // Exit-time floors above this fraction of the horizon are reported as warnings. The floor is
  // that of one evaluation; accumulated over the steps the error is some tens of times it
  // (tests/test_reliability.cpp; docs/internals.md).
  static constexpr double kExitRoundOffWarning = 1e-10;

  // The medium's depth is f computed from coordinates of order |q|: its round-off is about
  // ε (|∂f/∂q|·|q| + |∂f/∂t|·|t|), and the exit time, where f crosses 0 at the rate ḟ, is known
  // only to that over |ḟ|. In a viscous medium ḟ at the exit is of order 1/N, so this grows
  // like N.
  // The round-off of f_k at x (point_ evaluated there).
  double f_round_off(const State& x, int k) const { return constraint_round_off(point_, x, k); }
  // point_ holds the model at x (the caller evaluated it for the exit's rate ḟ).
  void note_exit_round_off(const State& x, int k, double rate) {
    const double floor = f_round_off(x, k) / std::abs(rate);
    exit_round_off_ = std::max(exit_round_off_.value_or(0.0), floor);
  }
  std::optional<double> exit_round_off_;
  // Roots of an exit function at the round-off of f, not taken as exits (apply_event).
  int round_off_exits_ = 0;

  // A medium whose depth is not resolved: a constraint in the medium at the end whose deepest f
  // since its entry is within kDepthResolution times the round-off of f. Its exit function (−f)
  // arms only once f < 0 has been computed, so an exit that round-off hides is never found (a run
  // would end ok without its lift-off; docs/internals.md).
  void note_unresolved_depth(const State& x) {
    model_.evaluate(x, modes_, point_);
    for (int k = 0; k < first_bilateral_; ++k) {
      if (!in_medium_[static_cast<std::size_t>(k)]) continue;
      const double round_off = f_round_off(x, k);
      const double depth = -episode_depth_[static_cast<std::size_t>(k)];
      if (depth > kDepthResolution * round_off) continue;
      rec_.warnings.push_back(
          "constraint " + std::to_string(k) + " has been in the medium since t = " +
          format_number(entry_time_[static_cast<std::size_t>(k)]) + " with a depth of at most " +
          format_number(depth > 0.0 ? depth : 0.0) + ", within " + format_number(kDepthResolution) +
          " times the round-off of f (" + format_number(round_off) +
          "): an exit would not be resolved in double precision, so the absence of a lift-off "
          "is not reliable at this N");
    }
  }
  // The same test at the start, ahead of the run: a realized constraint that touches at the
  // start and whose estimated depth at this N (depth_terms: its approach or its load) is within
  // kDepthResolution times the round-off of f.
  void note_unresolved_start(const State& x) {
    model_.evaluate(x, modes_, point_);
    std::vector<int> unilateral;
    for (int k = 0; k < first_bilateral_; ++k) {
      if (!is_ideal(k)) unilateral.push_back(k);
    }
    const double N = opt_.N;
    const auto terms =
        depth_terms(point_, x, unilateral, opt_.medium.mass / N, opt_.medium.damping / N,
                    opt_.medium.stiffness / N, opt_.medium.laws, settings_.t_end - x.t);
    for (const int k : unilateral) {
      const auto& t = terms[static_cast<std::size_t>(k)];
      if (t.empty()) continue;
      const double depth = depth_at(t, N), round_off = f_round_off(x, k);
      if (depth >= kDepthResolution * round_off) continue;
      rec_.warnings.push_back(
          "constraint " + model_.constraint_name(k) + " touches at the start, and at this N its " +
          "depth in the medium is estimated at " + format_number(depth) + " (from its " +
          (t.size() > 1 ? "approach and load" : t.front().cause) + "), within " +
          format_number(kDepthResolution) + " times the round-off of f (" +
          format_number(round_off) +
          "): its exit may not be resolved in double precision (crbench check gives the largest "
          "N above the floor; a gap coordinate has none, docs/extending.md)");
    }
  }
  std::vector<double> episode_depth_;  // per constraint, the least f since its entry
  std::vector<double> entry_time_;

  // Which constraints start inside the medium, and, for the obstacle, which push. On f = 0 the
  // sign of ḟ decides, and with ḟ = 0 that of the free f̈ (a tangential start such as dk-plane's
  // enters the medium when the free motion would cross Σ).
  void classify(const State& x) {
    model_.evaluate(x, modes_, point_);
    const Eigen::VectorXd rate = point_.constraint_rate(x.v);
    const Eigen::VectorXd free_f_dd = point_.J * free_acceleration(x) + point_.d;
    for (int k = 0; k < m_; ++k) {
      if (is_ideal(k)) continue;
      if (model_.is_bilateral(k)) {
        // A bilateral constraint is realized on both sides of f = 0, all the time (Kozlov 1992
        // §4: V_N = γN f²/2, Φ_N = βN ḟ²/2), without entry or exit.
        in_medium_[static_cast<std::size_t>(k)] = 1;
        pushing_[static_cast<std::size_t>(k)] = 1;
        continue;
      }
      const double f = point_.f(k);
      const bool inside =
          f < 0.0 || (f == 0.0 && (rate(k) < 0.0 || (rate(k) == 0.0 && free_f_dd(k) < 0.0)));
      if (inside) enter(x, k);
    }
  }

  // A one-sided kinematic row starts engaged when g < 0, or g = 0 and the free motion would make
  // it negative.
  void classify_kinematic(const State& x) {
    const int ku = model_.unilateral_kinematic_count();
    if (ku == 0) return;
    std::vector<double> damping = row_damping();
    for (int r = 0; r < ku; ++r) damping[static_cast<std::size_t>(r)] = 0.0;
    model_.evaluate(x, modes_, point_);
    Eigen::VectorXd qdd_free, nu_dot;
    kinematic_dynamics<double>(point_, point_.g, 1.0, opt_.medium, qdd_free, nu_dot, &damping);
    for (int r = 0; r < ku; ++r) {
      const double g = point_.g(r);
      const bool engage = g < 0.0 || (g == 0.0 && nu_dot(r) < 0.0);
      engaged_[static_cast<std::size_t>(r)] = engage ? 1 : 0;
      if (engage)
        rec_.events.push_back({.t = x.t, .kind = EventKind::kinematic_contact, .index = r});
    }
  }

  void enter(const State& x, int k) {
    in_medium_[static_cast<std::size_t>(k)] = 1;
    episode_depth_[static_cast<std::size_t>(k)] = std::numeric_limits<double>::infinity();
    entry_time_[static_cast<std::size_t>(k)] = x.t;
    // The entry velocity ḟ (the realization's counterpart of a velocity before an impact).
    model_.evaluate(x, modes_, point_);
    rec_.events.push_back({.t = x.t,
                           .kind = EventKind::enter_medium,
                           .index = k,
                           .rate_before = point_.constraint_rate(x.v)(k)});
    pushing_[static_cast<std::size_t>(k)] = 1;
    if (!opt_.medium.obstacle) return;
    // The obstacle pushes when its reaction would be positive, or, at zero, when the free motion
    // would go deeper.
    Eigen::VectorXd would_be;
    acceleration<double>(point_, x.v, in_medium_, pushing_, opt_.medium, &would_be, held());
    if (would_be(k) > 0.0) return;
    pushing_[static_cast<std::size_t>(k)] = 0;
    if (would_be(k) == 0.0) {
      const Eigen::VectorXd free_qdd = free_acceleration(x);
      const double rate = point_.constraint_rate(x.v)(k);
      if (rate < 0.0 || (rate == 0.0 && point_.J.row(k).dot(free_qdd) + point_.d(k) < 0.0)) {
        pushing_[static_cast<std::size_t>(k)] = 1;
      }
    }
  }

  // How far Coulomb row r's viscous friction D_r g_r exceeds its cone μ λ_k⁺ at x (p evaluated
  // there, nu the chart's ν = N g): |D_r g_r| − μ λ_k⁺, positive where the row slides on the cone
  // (kinematic_dynamics clamps it there); none while its constraint is not pushed.
  std::optional<double> cone_excess(const Point& p, const State& x, const Eigen::VectorXd& nu,
                                    int r) const {
    const auto slot = static_cast<std::size_t>(r);
    const int k = cone_.constraint[slot];
    const double damping = damping_[slot];  // set for the phase (classify_friction before)
    if (!pushing_[static_cast<std::size_t>(k)] || !(damping > 0.0)) return std::nullopt;
    const double viscous = damping * nu(r) / opt_.N;
    return std::abs(viscous) -
           cone_.mu[slot] * cone_reaction<double>(p, x.v, cone_, opt_.medium, k);
  }
  // The rate of cone_excess at a tie (|D_r g_r| = μ λ_k⁺, as on a start at rest on the surface,
  // where both are 0): D_r ġ_r against μ λ̇_k, with q̈ and ġ from kinematic_dynamics at x and
  // λ̇_k = −s N(β f̈_k + γ' ḟ_k) (Medium::normal; γ' its slope). Where the excess would rise, the
  // row goes on the cone at once; where its rate is 0 too, it creeps.
  double excess_rate(const State& x, const Eigen::VectorXd& nu, int r) {
    const auto slot = static_cast<std::size_t>(r);
    const int k = cone_.constraint[slot];
    Eigen::VectorXd qdd, nu_dot;
    kinematic_rate(x, nu, opt_.N, qdd, nu_dot);
    const Point& p = rhs_point_;
    const double viscous = damping_[slot] * nu(r) / opt_.N;
    const double viscous_rate = damping_[slot] * nu_dot(r) / opt_.N;
    const double rate = p.J.row(k).dot(x.v) + p.f_t(k);
    const double f_dd = p.J.row(k).dot(qdd) + p.d(k);
    const double lambda = cone_reaction<double>(p, x.v, cone_, opt_.medium, k);
    double lambda_rate = -opt_.medium.scale(k) * (opt_.medium.damping * f_dd +
                                                  opt_.medium.stiffness_slope(k, p.f(k)) * rate);
    if (lambda == 0.0) lambda_rate = std::max(lambda_rate, 0.0);
    const double abs_rate =
        viscous != 0.0 ? (viscous > 0.0 ? viscous_rate : -viscous_rate) : std::abs(viscous_rate);
    return abs_rate - cone_.mu[slot] * lambda_rate;
  }

  // The Coulomb rows' modes after an event or at the start: a row whose cone function crossed
  // changes mode (the force is continuous there, so the crossing's direction decides); any other
  // row whose constraint is pushed is on the cone where its viscous friction exceeds it. Each
  // change, and each row whose constraint has just begun to be pushed, is recorded as in
  // event-driven: kinematic_contact where the row creeps (the realization of sticking),
  // kinematic_release where it slides.
  void classify_friction(const State& x, const std::vector<Eigen::Index>& crossed) {
    if (coulomb_.empty()) return;
    damping_ = row_damping();
    model_.evaluate(x, modes_, point_);
    Eigen::VectorXd nu = opt_.N * point_.g;
    if (x.t == carried_nu_time_) nu = carried_nu_;
    const Eigen::Index first = 2 * m_ + switches_ + ku_;
    friction_pushed_.resize(coulomb_.size(), 0);
    for (std::size_t j = 0; j < coulomb_.size(); ++j) {
      const int r = coulomb_[j];
      const std::optional<double> excess = cone_excess(point_, x, nu, r);
      const bool was_pushed = friction_pushed_[j] != 0;
      friction_pushed_[j] = excess ? 1 : 0;
      if (!excess) {
        sliding_[j] = 0;
        continue;
      }
      const bool toggled = std::find(crossed.begin(), crossed.end(),
                                     first + static_cast<Eigen::Index>(j)) != crossed.end();
      const char before = sliding_[j];
      const double decides = *excess != 0.0 ? *excess : excess_rate(x, nu, r);
      sliding_[j] = toggled && was_pushed ? !before : decides > 0.0 ? 1 : 0;
      if (was_pushed && sliding_[j] == before) continue;
      rec_.events.push_back(
          {.t = x.t,
           .kind = sliding_[j] ? EventKind::kinematic_release : EventKind::kinematic_contact,
           .index = r});
    }
  }

  void apply_event(const State& x, Eigen::Index i) {
    const int S = model_.switch_count();
    if (i >= 2 * m_ + S + ku_) return;  // a Coulomb row's cone: classify_friction
    if (i >= 2 * m_ + S) {
      const int r = static_cast<int>(i - 2 * m_ - S);
      auto& on = engaged_[static_cast<std::size_t>(r)];
      on = !on;
      rec_.events.push_back(
          {.t = x.t,
           .kind = on ? EventKind::kinematic_contact : EventKind::kinematic_release,
           .index = r});
    } else if (i < m_) {
      const int k = static_cast<int>(i);
      if (in_medium_[static_cast<std::size_t>(k)]) {
        // The exit velocity ḟ (the realization's post-impact velocity).
        model_.evaluate(x, modes_, point_);
        const double rate = point_.J.row(k).dot(x.v) + point_.f_t(k);
        // f crosses 0 upwards only with ḟ ≥ 0. A root of −f where ḟ is clearly negative is the
        // round-off of f while the depth is still below it (a medium entered at f = 0 with ḟ = 0,
        // its first nanoseconds at large N): the point stays in the medium.
        const double rate_round_off =
            kDepthResolution * std::numeric_limits<double>::epsilon() *
            (point_.J.row(k).cwiseAbs().dot(x.v.cwiseAbs()) + std::abs(point_.f_t(k)));
        if (rate < -rate_round_off) {
          ++round_off_exits_;
          return;
        }
        in_medium_[static_cast<std::size_t>(k)] = 0;
        pushing_[static_cast<std::size_t>(k)] = 0;
        rec_.events.push_back(
            {.t = x.t, .kind = EventKind::exit_medium, .index = k, .rate_after = rate});
        note_exit_round_off(x, k, rate);
      } else {
        enter(x, k);
      }
    } else if (i < 2 * m_) {
      const int k = static_cast<int>(i - m_);
      // Outside the medium nothing pushes: a pushing function's root there (at the same time as
      // the exit, located in a phase of its own) changes nothing.
      if (!in_medium_[static_cast<std::size_t>(k)]) return;
      auto& push = pushing_[static_cast<std::size_t>(k)];
      push = !push;
      rec_.events.push_back(
          {.t = x.t, .kind = push ? EventKind::push : EventKind::release, .index = k});
    } else {
      const int j = static_cast<int>(i - 2 * m_);
      modes_[static_cast<std::size_t>(j)] = -modes_[static_cast<std::size_t>(j)];
      rec_.events.push_back({.t = x.t, .kind = EventKind::switch_function, .index = j});
    }
  }

  // The constraints left ideal (--realize): enforced while held, with their multipliers, as in
  // event-driven; released where λ reaches 0; Newton impacts in the metric of the medium's
  // inertia (its added mass included) where one arrives with ḟ < 0. The medium's force is finite,
  // so it takes no part in an impact.
  bool is_ideal(int k) const { return mixed_ && opt_.ideal[static_cast<std::size_t>(k)] != 0; }
  bool is_held(int k) const { return std::find(held_.begin(), held_.end(), k) != held_.end(); }
  const std::vector<int>* held() const { return held_.empty() ? nullptr : &held_; }

  // p with only the kinematic rows that act now and are independent (VelocityChart::
  // independent_rows), where the model has several conditional rows (row_subsets_): the others
  // neither hold the free motion nor enter W, and all of them would be dependent where two
  // corners touch together. p itself otherwise.
  const Point& acting_point(const Point& p) const {
    if (!row_subsets_) return p;
    acting_point_ = with_kinematic_rows(
        p,
        VelocityChart::independent_rows(p.a, acting_rows(row_damping()), 1.0, kIndependentRowMargin)
            .row_indices());
    return acting_point_;
  }
  // The kinematic rows with friction (row_damping's positive entries).
  static std::vector<int> acting_rows(const std::vector<double>& damping) {
    std::vector<int> acting;
    for (std::size_t r = 0; r < damping.size(); ++r) {
      if (damping[r] > 0.0) acting.push_back(static_cast<int>(r));
    }
    return acting;
  }

  // q̈ at x (point_ evaluated there) with no realized constraint pushing and the held ones
  // enforced: the free motion that decides a start inside the medium.
  Eigen::VectorXd free_acceleration(const State& x) {
    if (!mixed_) return constrained_acceleration(acting_point(point_), {}).qdd;
    const std::vector<char> none(static_cast<std::size_t>(m_), 0);
    return acceleration<double>(point_, x.v, none, none, opt_.medium, nullptr, held());
  }

  void release_if_held(const State& x, int k, std::vector<int>& leaving) {
    const auto it = std::find(held_.begin(), held_.end(), k);
    if (it == held_.end()) return;  // a contact: resolve_ideal takes it
    held_.erase(it);
    leaving.push_back(k);
    rec_.events.push_back({.t = x.t, .kind = EventKind::lift_off, .index = k});
  }

  // The ideal constraints at x after an event: impacts of those arriving, then the ones at rest
  // held where the acceleration-level complementarity 0 ≤ λ ⊥ f̈ ≥ 0 gives λ > 0 (`leaving` have
  // just been released and stay so); then the held ones projected onto f = 0, ḟ = 0.
  void resolve_ideal(State& x, const std::vector<int>& leaving) {
    model_.evaluate(x, modes_, point_);
    Eigen::VectorXd rate = point_.constraint_rate(x.v);
    std::vector<int> near, impacting, approaching;
    for (int k = 0; k < first_bilateral_; ++k) {
      if (!is_ideal(k)) continue;
      if (is_held(k) || std::abs(point_.f(k)) <= opt_.distance_tol) near.push_back(k);
    }
    for (const int k : near) {
      if (rate(k) < -opt_.velocity_tol) impacting.push_back(k);
      if (rate(k) <= opt_.velocity_tol) approaching.push_back(k);
    }
    const bool impacted = !impacting.empty();
    if (impacted) ideal_impact(x, impacting, approaching, rate);
    std::vector<int> resting;
    for (const int k : near) {
      if (std::abs(rate(k)) <= opt_.velocity_tol &&
          std::find(leaving.begin(), leaving.end(), k) == leaving.end()) {
        resting.push_back(k);
      }
    }
    std::vector<int> next;
    if (!resting.empty()) {
      // f̈ = W λ + b on the resting rows, in the metric M of acceleration() (A and the medium's
      // added mass), b their f̈ with none of them held.
      if (impacted) model_.evaluate(x, modes_, point_);  // c and d depend on q̇
      const MetricRows rows = metric_rows(x, resting);
      const Eigen::MatrixXd& J = rows.J;
      const Eigen::VectorXd& qdd = rows.qdd;
      Eigen::VectorXd b = J * qdd;
      double terms = 0.0;
      for (std::size_t r = 0; r < resting.size(); ++r) {
        const auto i = static_cast<Eigen::Index>(r);
        b(i) += point_.d(resting[r]);
        terms = std::max(terms,
                         J.row(i).cwiseAbs().dot(qdd.cwiseAbs()) + std::abs(point_.d(resting[r])));
      }
      const auto lcp = solve_lcp(rows.W, b, 1e-12, terms);
      if (!lcp) {
        throw RunFailure{Status::lcp_failure,
                         "no multipliers solve the contact complementarity of the ideal "
                         "constraints at t = " +
                             format_number(x.t)};
      }
      for (std::size_t r = 0; r < resting.size(); ++r) {
        if (lcp->x(static_cast<Eigen::Index>(r)) > 0.0) next.push_back(resting[r]);
      }
    }
    for (const int k : held_) {
      if (std::find(next.begin(), next.end(), k) == next.end()) {
        rec_.events.push_back({.t = x.t, .kind = EventKind::lift_off, .index = k});
      }
    }
    for (const int k : next) {
      if (!is_held(k)) rec_.events.push_back({.t = x.t, .kind = EventKind::contact, .index = k});
    }
    held_ = next;
    project_held(x);
  }

  // The rows J_R of `rows` in the metric M of acceleration() (A and the medium's added mass) at
  // x (point_ evaluated there): X = M⁻¹J_Rᵀ, W = J_R X, and q̈ with none of the ideal rows held.
  struct MetricRows {
    Eigen::MatrixXd J, X, W;
    Eigen::VectorXd qdd;
  };
  MetricRows metric_rows(const State& x, const std::vector<int>& rows) {
    MetricRows out;
    AccelerationWork<double> work;
    acceleration<double>(point_, x.v, in_medium_, pushing_, opt_.medium, work, out.qdd, nullptr);
    out.J.resize(static_cast<Eigen::Index>(rows.size()), point_.J.cols());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      out.J.row(static_cast<Eigen::Index>(r)) = point_.J.row(rows[r]);
    }
    out.X = work.lu.solve(Eigen::MatrixXd(out.J.transpose()));
    out.W = out.J * out.X;
    return out;
  }

  // Newton's law with ideal_restitution e on the `approaching` rows (at rest or closing), in the
  // metric M: 0 ≤ P ⊥ ḟ⁺ + e·min(ḟ⁻, 0) ≥ 0, ḟ⁺ = ḟ⁻ + J_C M⁻¹J_Cᵀ P, q̇⁺ = q̇⁻ + M⁻¹J_Cᵀ P.
  void ideal_impact(State& x, const std::vector<int>& impacting,
                    const std::vector<int>& approaching, Eigen::VectorXd& rate) {
    const MetricRows rows = metric_rows(x, approaching);
    Eigen::VectorXd b(static_cast<Eigen::Index>(approaching.size()));
    for (std::size_t r = 0; r < approaching.size(); ++r) {
      const double before = rate(approaching[r]);
      b(static_cast<Eigen::Index>(r)) = before + opt_.ideal_restitution * std::min(before, 0.0);
    }
    const auto lcp = solve_lcp(rows.W, b);
    if (!lcp) {
      throw RunFailure{Status::lcp_failure,
                       "no impulse solves the impact complementarity of the "
                       "ideal constraints at t = " +
                           format_number(x.t)};
    }
    emit(x, "impact-");
    x.v += rows.X * lcp->x;
    const Eigen::VectorXd after = point_.constraint_rate(x.v);
    for (std::size_t r = 0; r < approaching.size(); ++r) {
      impulse_.add(approaching[r], lcp->x(static_cast<Eigen::Index>(r)));
    }
    for (const int k : impacting) {
      rec_.events.push_back({.t = x.t,
                             .kind = EventKind::impact,
                             .index = k,
                             .rate_before = rate(k),
                             .rate_after = after(k)});
    }
    rate = after;
    emit(x, "impact+");
  }

  // One Newton step onto f_H = 0 and ḟ_H = 0 in the kinetic metric, removing the drift of the
  // acceleration-level constraint over the previous phase (a correction at the level of the
  // integration tolerance; its velocity part is an impulse of the held constraints).
  void project_held(State& x) {
    if (held_.empty()) return;
    model_.evaluate(x, modes_, point_);
    Delassus D = delassus(point_, held_);
    Eigen::VectorXd f(static_cast<Eigen::Index>(held_.size()));
    for (std::size_t r = 0; r < held_.size(); ++r)
      f(static_cast<Eigen::Index>(r)) = point_.f(held_[r]);
    x.q -= D.Ainv_Jt * D.W.ldlt().solve(f);
    model_.evaluate(x, modes_, point_);
    D = delassus(point_, held_);
    const Eigen::VectorXd all = point_.constraint_rate(x.v);
    Eigen::VectorXd rate(static_cast<Eigen::Index>(held_.size()));
    for (std::size_t r = 0; r < held_.size(); ++r)
      rate(static_cast<Eigen::Index>(r)) = all(held_[r]);
    const Eigen::VectorXd correction = -D.W.ldlt().solve(rate);
    x.v += D.Ainv_Jt * correction;
    for (std::size_t r = 0; r < held_.size(); ++r) {
      impulse_.add(held_[r], correction(static_cast<Eigen::Index>(r)));
    }
  }

  // q̈ of the realized unilateral constraints at x (kinematic rows: kinematic_dynamics), into
  // `qdd`.
  void qdd(const State& x, Eigen::VectorXd& qdd, Eigen::VectorXd* would_be = nullptr) {
    if (sparse_rhs_) {
      sparse_acceleration(x, qdd, would_be);
      return;
    }
    dense_qdd(x, qdd, would_be);
  }
  // The same through the dense Point, which it leaves in rhs_point_.
  void dense_qdd(const State& x, Eigen::VectorXd& qdd, Eigen::VectorXd* would_be = nullptr) {
    model_.evaluate(x, modes_, rhs_point_);
    acceleration<double>(rhs_point_, x.v, in_medium_, pushing_, opt_.medium, acceleration_work_,
                         qdd, would_be, held());
  }

  // acceleration() in the sparse form of a chain (cases/sparse_terms.hpp: A = diag(mass), F
  // independent of q and q̇), for α = 0 and no kinematic rows or force switches: q̈ = (F −
  // Σ_pushing J_kᵀ N(β ḟ_k + γ f_k)) / mass in O(n + nonzeros of J), where the dense Point and
  // its LU cost O(n²) and O(n³) (a chain of 100 balls). The sums run as acceleration()'s do
  // (its zeros add nothing), so both give the same bits. Leaves the terms in `terms` (by default
  // sparse_terms_; the impulse quadrature keeps its own).
  void sparse_acceleration(const State& x, Eigen::VectorXd& qdd, Eigen::VectorXd* would_be) {
    sparse_acceleration(x, qdd, would_be, sparse_terms_, sparse_medium_);
  }
  void sparse_acceleration(const State& x, Eigen::VectorXd& qdd, Eigen::VectorXd* would_be,
                           SparseTerms& terms, Eigen::VectorXd& medium) {
    using Row = Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator;
    model_.sparse_terms(x, terms);
    const SparseTerms& p = terms;
    medium.setZero(n_);
    if (would_be != nullptr) would_be->setZero(m_);
    for (int k = 0; k < m_; ++k) {
      const auto slot = static_cast<std::size_t>(k);
      const bool push = pushing_[slot] != 0;
      const bool wanted = would_be != nullptr && in_medium_[slot] != 0;
      if (!push && !wanted) continue;
      double rate = 0.0;
      for (Row it(p.J, k); it; ++it) rate += it.value() * x.v(it.col());
      rate += p.f_t(k);
      const double normal = opt_.medium.normal<double>(k, rate, p.f(k));
      if (push) {
        for (Row it(p.J, k); it; ++it) medium(it.col()) -= it.value() * normal;
      }
      if (wanted) (*would_be)(k) = -normal;
    }
    qdd = p.force;
    qdd += medium;
    qdd = qdd.cwiseQuotient(p.mass);
  }

  // Event functions: [0, m) entry (f_k) or exit (−f_k); [m, 2m) for the obstacle in the medium,
  // end of pushing (λ_k) or start (−λ_k would-be); then the switching functions; then, per
  // one-sided kinematic row, ν_r = N g_r while free (engagement) or −ν_r while engaged (release),
  // with ν the chart's coordinate (State::aux), not N(a q̇ + b) with q̇'s round-off times N.
  void probe(const State& x, Eigen::VectorXd& g) {
    ++probe_evaluations_;
    Eigen::VectorXd& would_be = probe_would_be_;
    // The obstacle's pushing functions need the would-be reactions, hence q̈; the entries and exits
    // need f alone (a quarter of the cost of a point with its derivatives).
    const bool reactions =
        !held_.empty() || (opt_.medium.obstacle && std::any_of(in_medium_.begin(), in_medium_.end(),
                                                               [](char c) { return c != 0; }));
    if (reactions) {
      qdd(x, probe_qdd_, &would_be);
      probe_f_ = sparse_rhs_ ? sparse_terms_.f : rhs_point_.f;
    } else if (m_ > 0) {
      model_.constraint_values(x.t, x.q, probe_f_);
    }
    g.resize(2 * m_ + switches_ + ku_ + static_cast<Eigen::Index>(coulomb_.size()));
    for (int r = 0; r < ku_; ++r) {
      g(2 * m_ + switches_ + r) = engaged_[static_cast<std::size_t>(r)] ? -x.aux(r) : x.aux(r);
    }
    if (!coulomb_.empty()) {
      // The reactions above left rhs_point_ at x (kinematic rows: never the sparse form).
      if (!reactions) model_.evaluate(x, modes_, rhs_point_);
      for (std::size_t j = 0; j < coulomb_.size(); ++j) {
        const Eigen::Index at = 2 * m_ + switches_ + ku_ + static_cast<Eigen::Index>(j);
        const std::optional<double> excess = cone_excess(rhs_point_, x, x.aux, coulomb_[j]);
        g(at) = !excess ? 1.0 : sliding_[j] ? *excess : -*excess;
      }
    }
    for (int k = 0; k < m_; ++k) {
      const bool inside = in_medium_[static_cast<std::size_t>(k)];
      g(k) = inside ? -probe_f_(k) : probe_f_(k);
      g(m_ + k) = 1.0;
      if (k >= first_bilateral_) {
        g(k) = 1.0;  // never an event
        continue;
      }
      // A constraint left ideal: its contact where f reaches 0, its lift-off where λ does.
      if (is_ideal(k)) {
        g(k) = is_held(k) ? would_be(k) : probe_f_(k);
        continue;
      }
      if (inside && opt_.medium.obstacle) {
        g(m_ + k) = pushing_[static_cast<std::size_t>(k)] ? would_be(k) : -would_be(k);
      }
    }
    if (switches_ == 0) return;
    model_.switching_values(x, probe_switching_);
    for (int j = 0; j < switches_; ++j) {
      g(2 * m_ + j) = modes_[static_cast<std::size_t>(j)] * probe_switching_(j);
    }
  }

  // The friction of each kinematic row (kinematic_dynamics): βN for a two-sided row and a
  // one-sided row that is engaged, β_t N (`slip_beta`) for a conditional row while its
  // constraint is in the medium, 0 for the others.
  std::vector<double> row_damping() const {
    std::vector<double> damping(engaged_.size(), 0.0);
    for (int r = 0; r < model_.kinematic_count(); ++r) {
      const int k = model_.kinematic_condition(r);
      const bool acts = k >= 0 ? in_medium_[static_cast<std::size_t>(k)] != 0
                               : engaged_[static_cast<std::size_t>(r)] != 0;
      if (acts) {
        damping[static_cast<std::size_t>(r)] = k >= 0 ? opt_.slip_damping : opt_.medium.damping;
      }
    }
    return damping;
  }
  // kinematic_dynamics' row frictions: all rows with βN (null) unless some row switches; they
  // change only at events, and are taken at the start of each phase.
  const std::vector<double>* switched_rows() const { return rows_switch_ ? &damping_ : nullptr; }

  bool stiff_phase() const {
    // Two-sided kinematic rows act everywhere, one-sided and conditional ones while engaged:
    // with α = 0 their friction makes the phase stiff, as does a pushing medium.
    if (opt_.medium.mass != 0.0) return false;
    if (std::any_of(pushing_.begin(), pushing_.end(), [](char c) { return c != 0; })) return true;
    if (!rows_switch_) return model_.kinematic_count() > 0;
    return std::any_of(damping_.begin(), damping_.end(), [](double d) { return d > 0.0; });
  }

  // The fast frequency of the pushing constraints when their spring is underdamped, else none.
  // In the medium the normal motion z = f obeys z̈ ≈ −W N(β ż + γ z), W = J A⁻¹ Jᵀ (Deryabin &
  // Kozlov 1995 (1.8) at α = 0): per eigenvalue w of W a mode of frequency √(γN w) and damping
  // ratio ζ = βN w / (2√(γN w)). With every ζ ≤ 1 the phase is an oscillation that must be
  // followed period by period (an L-stable method gains nothing: no mode decays faster than it
  // turns), and DOP853 takes it in tens of steps per period (solvers/dop853.hpp); overdamped or
  // purely viscous phases stay with the Rosenbrock method. Kinematic rows always make the phase
  // stiff (friction βN without a spring).
  //
  // A power law (ContactLaw::exponent ≠ 1) has no fixed frequency: its stiffness grows with the
  // depth. Undamped, its phase is an oscillation all the same, and goes to DOP853 without the test
  // of unresolved steps (ω = 0 turns it off); damped, to the Rosenbrock method.
  std::optional<double> underdamped_frequency(double w_max) const {
    if (model_.kinematic_count() > 0 || !(opt_.medium.stiffness > 0.0)) return std::nullopt;
    if (power_law_) {
      return opt_.medium.damping == 0.0 && opt_.medium.mass == 0.0 ? std::optional<double>(0.0)
                                                                   : std::nullopt;
    }
    const double zeta =
        opt_.medium.damping * w_max / (2.0 * std::sqrt(opt_.medium.stiffness * w_max));
    if (!(zeta <= 1.0)) return std::nullopt;
    return std::sqrt(opt_.medium.stiffness * w_max);
  }

  // The largest eigenvalue w of W over the pushing constraints at x, when positive; with the
  // constraints' scales s (ContactLaw), of S^½ W S^½, whose modes are those of z̈ = −N W S(β ż +
  // γ z).
  std::optional<double> largest_pushing_w(const State& x) {
    std::vector<int> rows;
    for (int k = 0; k < m_; ++k) {
      if (pushing_[static_cast<std::size_t>(k)]) rows.push_back(k);
    }
    if (rows.empty()) return std::nullopt;
    model_.evaluate(x, modes_, point_);
    Eigen::MatrixXd W = delassus(acting_point(point_), rows).W;
    if (!opt_.medium.laws.empty()) {
      Eigen::VectorXd root(W.rows());
      for (Eigen::Index r = 0; r < W.rows(); ++r) {
        root(r) = std::sqrt(opt_.medium.scale(rows[static_cast<std::size_t>(r)]));
      }
      W = root.asDiagonal() * W * root.asDiagonal();
    }
    const double w_max = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(W, Eigen::EigenvaluesOnly)
                             .eigenvalues()
                             .maxCoeff();
    if (!(w_max > 0.0)) return std::nullopt;
    return w_max;
  }

  // An upper bound on the rate of the fastest normal mode of the pushing constraints: per
  // eigenvalue w of W = J A⁻¹ Jᵀ the mode z̈ = −N w (β ż + γ z) has rates of modulus at most
  // max(βN w, √(γN w)). The first step of a stiff phase resolves it: a first step tied to the
  // horizon alone (10⁻⁶ of it) jumped over the transient that follows an event when the horizon
  // was long, and the exit came out at the limit's time, not the realization's
  // (docs/internals.md).
  double fastest_normal_rate(double w_max) const {
    return std::max(opt_.medium.damping * w_max, std::sqrt(opt_.medium.stiffness * w_max));
  }

  PhaseEnd integrate_phase(const State& x) {
    damping_ = row_damping();
    const double span = settings_.t_end - model_.initial_state().t;
    const double max_dt = opt_.max_step_fraction * span;
    double dt0 = std::min(max_dt, 1e-6 * span);
    // Computed once for the first step and the choice of the oscillation integrator.
    // (0: no pushing constraint, or not a stiff phase.)
    const double w_max = stiff_phase() ? largest_pushing_w(x).value_or(0.0) : 0.0;
    // A tenth of the fastest mode's time: the controller then only grows the step.
    if (w_max > 0.0) dt0 = std::min(dt0, 0.1 / fastest_normal_rate(w_max));
    // Arming: the exit function (−f) of a constraint in the medium and the pushing functions arm
    // once positive. The entry function (f) of a constraint outside is armed from the start: a
    // real exit has ḟ > 0 and f grows, while after a grazing exit (the normal motion touching
    // f = 0 tangentially, as the undamped penalty oscillation does every period) f turns negative
    // again at once and the entry fires at the start of the phase, undoing the exit; an unarmed
    // entry function would miss it.
    std::vector<double> threshold(static_cast<std::size_t>(2 * m_ + model_.switch_count() +
                                                           model_.unilateral_kinematic_count()) +
                                      coulomb_.size(),
                                  0.0);
    // Likewise the pushing function (−λ would-be) of an obstacle in the medium that does not push:
    // entered at f = 0 where the undamped spring's would-be reaction −Nγf is exactly 0, it turns
    // negative as f does, and an unarmed function would let the point fall through the medium.
    // An ideal constraint's f (after a release at f = 0) and λ arm once positive, as in
    // event-driven.
    for (int k = 0; k < m_; ++k) {
      const auto slot = static_cast<std::size_t>(k);
      if (is_ideal(k)) continue;
      if (!in_medium_[slot]) {
        threshold[slot] = -std::numeric_limits<double>::infinity();
      } else if (opt_.medium.obstacle && !pushing_[slot]) {
        threshold[static_cast<std::size_t>(m_ + k)] = -std::numeric_limits<double>::infinity();
      }
    }
    const PhaseControl control{.t_end = settings_.t_end,
                               .event_time_tol = opt_.event_time_tol,
                               .max_steps = opt_.max_steps,
                               .wall_time = wall_time_};
    // Both integrators work in the velocity chart (solvers/velocity_chart.hpp): with kinematic
    // rows y = (q, ν, q̇_F), ν = N g; without them the identity chart y = (q, q̇).
    chart_ = best_chart(x);
    Eigen::VectorXd y0 = chart_.point(model_, x);
    if (x.t == carried_nu_time_) set_chart_nu(y0, carried_nu_);
    State start = x;
    start.aux = chart_nu(x.t, y0);
    // The stiff phases' right-hand side and its AD Jacobian (Rosenbrock).
    const auto rhs = [this](double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
      chart_rate(t, y, dy);
    };
    const auto jacobian = [this](double t, const Eigen::VectorXd& y, Eigen::MatrixXd& jac,
                                 Eigen::VectorXd& dfdt) {
      ++jacobian_evaluations_;
      if (sparse_jacobian_) {
        jacobian_state_.t = t;
        jacobian_state_.q = y.head(n_);
        jacobian_state_.v = y.tail(n_);
        model_.sparse_terms(jacobian_state_, jacobian_terms_);
        model_.sparse_hessians(jacobian_state_, jacobian_terms_);
        sparse_realization_jacobian(jacobian_terms_, jacobian_state_.v, pushing_, opt_.medium, jac,
                                    dfdt);
        return;
      }
      realization_jacobian(model_, chart_, t, y, modes_, in_medium_, pushing_, opt_.medium,
                           jacobian_work_, jac, dfdt, switched_rows(), held(), cone());
    };
    // Every stepper reads its points as states of the chart and, with kinematic rows, may move to
    // a better chart between two steps.
    const auto to_state = [this](double t, const Eigen::VectorXd& y, State& xs) {
      chart_state(t, y, xs);
    };
    const auto in_best_chart = [this](auto& stepper) {
      if (chart_.rows() == 0) return false;
      Eigen::VectorXd y = current_state_of(stepper);
      if (!change_chart(stepper.current_time(), y)) return false;
      stepper.initialize(y, stepper.current_time(), stepper.step_size());
      return true;
    };
    if (stiff_phase()) {
      auto stiff_system = std::pair<decltype(rhs)&, decltype(jacobian)&>(rhs, jacobian);
      if (opt_.explicit_oscillation) {
        if (const std::optional<double> omega =
                w_max > 0.0 ? underdamped_frequency(w_max) : std::nullopt) {
          auto spring = [this](double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
            spring_rate(t, y, dy);
          };
          Dop853Dense oscillation(chart_tolerances(), settings_.rtol, max_dt);
          RosenbrockDense decayed(chart_tolerances(), settings_.rtol, max_dt);
          OscillationThenDecay stepper(oscillation, decayed, *omega, oscillation_counts_);
          auto system = OscillationThenDecay::System<decltype(spring), decltype(stiff_system)>{
              spring, stiff_system};
          // A tenth of a radian of the fast oscillation: the controller then only grows the step.
          stepper.initialize(y0, x.t, std::min(dt0, 0.1 / *omega));
          auto dense = dense_phase(stepper, system, dense_point_, to_state);
          PhaseEnd end = advance_in_chart(dense, start, threshold, control);
          oscillatory_rejected_ += oscillation.rejected();
          stiff_rejected_ += decayed.rejected();
          steps_at_time_resolution_ += decayed.accepted_above_tolerance();
          return end;
        }
      }
      RosenbrockDense stepper(chart_tolerances(), settings_.rtol, max_dt);
      stepper.initialize(y0, x.t, dt0);
      const long steps_before = counters_.steps;
      auto dense = dense_phase(stepper, stiff_system, dense_point_, to_state, in_best_chart);
      PhaseEnd end = advance_in_chart(dense, start, threshold, control);
      oscillation_counts_.stiff_steps += counters_.steps - steps_before;
      stiff_rejected_ += stepper.rejected();
      steps_at_time_resolution_ += stepper.accepted_above_tolerance();
      return end;
    }

    auto system = [this](double t, const double* y, double* dy) {
      ++nonstiff_evaluations_;
      system_y_ = Eigen::Map<const Eigen::VectorXd>(y, 2 * n_);
      chart_rate(t, system_y_, system_dy_);
      std::copy(system_dy_.data(), system_dy_.data() + 2 * n_, dy);
    };
    // Here (α > 0, not stiff) ν is an O(1) state like the limit's λ and shares the scalar
    // tolerances. Odeint's dense-output dopri5, step for step (solvers/dopri5.hpp).
    Dopri5Dense stepper(opt_.atol_effective, settings_.rtol, max_dt);
    stepper.initialize(y0, x.t, dt0);
    ++nonstiff_phases_;
    auto dense = dense_phase(stepper, system, dense_point_, to_state, [&](Dopri5Dense& s) {
      if (in_best_chart(s)) ++nonstiff_phases_;
    });
    return advance_in_chart(dense, start, threshold, control);
  }

  template <class Dense>
  PhaseEnd advance_in_chart(Dense& dense, const State& x, const std::vector<double>& threshold,
                            const PhaseControl& control) {
    // The probe has just computed f at xs (inspect follows it at every sample). Where the samples
    // of f_k have a local minimum, the dense output is searched for it (Brent), so that the
    // record's min_constraint and a medium's depth are the deepest point, not the deepest sample
    // (the samples alone can be shallow by far more than the tolerances; docs/internals.md).
    trail_.assign(static_cast<std::size_t>(m_), Trail{});  // no allocation after the first phase
    const auto inspect = [this, &dense](const State& xs, const Eigen::VectorXd& g,
                                        const std::vector<char>& armed) {
      // An ideal constraint whose f has gone below −contact_distance_tol without having been
      // seen positive was crossed unseen (as in event-driven): a failure, never a silent
      // penetration.
      for (int k = 0; mixed_ && k < first_bilateral_; ++k) {
        if (is_ideal(k) && !is_held(k) && !armed[static_cast<std::size_t>(k)] &&
            g(k) < -opt_.distance_tol) {
          throw RunFailure{Status::missed_contact,
                           "constraint " + std::to_string(k) +
                               " (ideal) reached f = " + format_number(g(k)) +
                               " at t = " + format_number(xs.t) + " without a located contact"};
        }
      }
      update_minimum(probe_f_);
      for (int k = 0; k < m_; ++k) {
        Trail& tr = trail_[static_cast<std::size_t>(k)];
        const double f = probe_f_(k);
        if (tr.count >= 2 && tr.f_prev < tr.f_before && tr.f_prev <= f && xs.t > tr.t_before) {
          // The run's buffers: no allocation once they have their sizes.
          const auto f_of_t = [&](double t) {
            dense.at(t, minimum_state_);
            model_.constraint_values(t, minimum_state_.q, minimum_f_);
            return minimum_f_(k);
          };
          const double f_min =
              boost::math::tools::brent_find_minima(f_of_t, tr.t_before, xs.t,
                                                    std::numeric_limits<double>::digits / 2)
                  .second;
          auto& slot = rec_.min_constraint[static_cast<std::size_t>(k)];
          slot = std::min(slot, f_min);
          if (in_medium_[static_cast<std::size_t>(k)]) {
            auto& depth = episode_depth_[static_cast<std::size_t>(k)];
            depth = std::min(depth, f_min);
          }
        }
        tr = {.t_before = tr.t_prev,
              .f_before = tr.f_prev,
              .t_prev = xs.t,
              .f_prev = f,
              .count = tr.count + 1};
      }
    };
    const auto probe_fn = [this](const State& xs, Eigen::VectorXd& g) { probe(xs, g); };
    impulse_.start(m_, x.t);
    const bool pushes = !held_.empty() || std::any_of(pushing_.begin(), pushing_.end(),
                                                      [](char c) { return c != 0; });
    const auto grid = [&](double t_limit, bool inclusive) {
      impulse_.advance(t_limit, pushes, [&](double t, Eigen::VectorXd& lambda) {
        dense.at(t, impulse_state_);
        if (sparse_rhs_) {
          sparse_acceleration(impulse_state_, impulse_qdd_, &impulse_would_be_, impulse_terms_,
                              impulse_medium_);
        } else {
          model_.evaluate(impulse_state_, modes_, impulse_point_);
          acceleration<double>(impulse_point_, impulse_state_.v, in_medium_, pushing_, opt_.medium,
                               impulse_work_, impulse_qdd_, &impulse_would_be_, held());
        }
        lambda.setZero(m_);
        for (int k = 0; k < m_; ++k) {
          if (pushing_[static_cast<std::size_t>(k)]) lambda(k) = impulse_would_be_(k);
        }
        for (const int k : held_) lambda(k) = impulse_would_be_(k);
      });
      output_.grid(dense, t_limit, inclusive, [&](const State& xs) {
        return sample(xs, "", chart_nu(xs.t, dense.point(xs.t)));
      });
    };
    PhaseEnd end =
        advance_to_event(dense, x, probe_fn, threshold, control, counters_, inspect, grid);
    if (counters_.dips_unsearched > 0 && first_dip_function_.empty()) {
      first_dip_function_ = event_function_name(counters_.first_unsearched_function);
    }
    carried_nu_time_ = end.x.t;
    carried_nu_ = chart_nu(end.x.t, dense.point(end.x.t));
    return end;
  }

  // ẏ = (q̇, q̈) of an underdamped spring phase (identity chart, α = 0, no kinematic rows):
  // acceleration() at α = 0 in the run's workspace, sized at the first evaluation, then no
  // allocation per evaluation (DOP853 takes 16 of them per step).
  void spring_rate(double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
    ++rhs_evaluations_;
    spring_state_.t = t;
    spring_state_.q = y.head(n_);
    spring_state_.v = y.tail(n_);
    if (sparse_rhs_) {
      sparse_acceleration(spring_state_, spring_qdd_, nullptr);
    } else if (!held_.empty()) {
      dense_qdd(spring_state_, spring_qdd_);
    } else {
      model_.evaluate(spring_state_, modes_, rhs_point_);
      const Point& p = rhs_point_;
      spring_force_ = p.Q - p.grad_V - p.c;  // p.free_force() without its temporary
      add_medium_force<double>(p, spring_state_.v, pushing_, opt_.medium, spring_force_);
      spring_lu_.compute(p.A);
      spring_qdd_ = spring_lu_.solve(spring_force_);
    }
    if (!all_finite(spring_qdd_)) {
      throw RunFailure{Status::non_finite, "non-finite acceleration at t = " + format_number(t)};
    }
    dy.head(n_) = spring_state_.v;
    dy.tail(n_) = spring_qdd_;
  }

  // ẏ = (q̇, ẇ) in the chart: ẇ = q̈ in the identity chart, (ν̇, q̈_F) with kinematic rows. In
  // the identity chart nothing is allocated once the run's buffers have their sizes.
  void chart_rate(double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
    ++rhs_evaluations_;
    State& s = rate_state_;
    chart_state(t, y, s);
    if (model_.kinematic_count() == 0) {
      qdd(s, rate_qdd_);
      if (!all_finite(rate_qdd_)) {
        throw RunFailure{Status::non_finite, "non-finite acceleration at t = " + format_number(t)};
      }
      dy.resize(2 * n_);
      dy.head(n_) = s.v;
      dy.tail(n_) = rate_qdd_;
      return;
    }
    Eigen::VectorXd a, nu_dot;
    kinematic_rate(s, s.aux, chart_.scale(), a, nu_dot);
    if (!a.allFinite() || !nu_dot.allFinite()) {
      throw RunFailure{Status::non_finite, "non-finite acceleration at t = " + format_number(t)};
    }
    dy.resize(2 * n_);
    dy << s.v, chart_.rate<double>(nu_dot, a);
  }

  // q̈ and ν̇ at the state s with the chart's ν = scale·g (kinematic_dynamics with the medium's
  // force on the constraints it pushes), rhs_point_ left evaluated at s.
  void kinematic_rate(const State& s, const Eigen::VectorXd& nu, double scale, Eigen::VectorXd& qdd,
                      Eigen::VectorXd& nu_dot) {
    model_.evaluate(s, modes_, rhs_point_);
    if (m_ > 0) rhs_point_.Q += medium_force<double>(rhs_point_, s.v, pushing_, opt_.medium);
    kinematic_dynamics<double>(rhs_point_, nu, scale, opt_.medium, qdd, nu_dot, switched_rows(),
                               cone(), &s.v);
  }

  // (q, q̇) at the chart's point y, with the chart's ν in State::aux (no allocation in the
  // identity chart once x has its sizes).
  void chart_state(double t, const Eigen::VectorXd& y, State& x) const {
    if (model_.kinematic_count() == 0) {
      x.t = t;
      x.q = y.head(n_);
      x.v = y.tail(n_);
      x.aux.resize(0);
      return;
    }
    x = chart_.state(model_, t, y, chart_a_, chart_b_);
    x.aux = chart_.all_nu(chart_a_, chart_b_, x.v, y.tail(n_));
  }
  State chart_state(double t, const Eigen::VectorXd& y) const {
    State x;
    chart_state(t, y, x);
    return x;
  }
  // ν of every kinematic row at the chart's point y: its coordinates, and where the chart leaves
  // rows out (VelocityChart::independent_rows), N g of the others.
  Eigen::VectorXd chart_nu(double t, const Eigen::VectorXd& y) const {
    if (chart_.all_rows(model_.kinematic_count())) return y.segment(n_, chart_.rows());
    return chart_state(t, y).aux;
  }
  // The chart's coordinates ν in y from the ν of every row.
  void set_chart_nu(Eigen::VectorXd& y, const Eigen::VectorXd& nu) const {
    for (int r = 0; r < chart_.rows(); ++r) {
      y(n_ + r) = nu(chart_.row_indices()[static_cast<std::size_t>(r)]);
    }
  }

  // Positions and velocities at the run's tolerances; ν = N g at N times that of g.
  Eigen::VectorXd chart_tolerances() const {
    Eigen::VectorXd atol(2 * n_);
    atol << Eigen::VectorXd::Constant(n_, opt_.atol_effective),
        Eigen::VectorXd::Constant(n_, opt_.atol_velocity);
    atol.segment(n_, chart_.rows()) *= chart_.scale();
    return atol;
  }

  VelocityChart best_chart(const State& x) const {
    model_.kinematic_affine(x.t, x.q, chart_a_, chart_b_);
    try {
      if (row_subsets_) {
        return VelocityChart::independent_rows(chart_a_, acting_rows(damping_), opt_.N,
                                               kIndependentRowMargin);
      }
      return VelocityChart::best_for(chart_a_, opt_.N);
    } catch (const std::runtime_error& e) {
      throw RunFailure{Status::degenerate_constraints,
                       std::string(e.what()) + " at t = " + format_number(x.t)};
    }
  }

  // Between two steps: once the chart's a_C has lost more than half of the best chart's |det|,
  // the integration goes on in the best chart from the same state, ν unchanged (an exact change
  // of coordinates; the caller keeps the step size). y is the point, replaced when it changes.
  bool change_chart(double t, Eigen::VectorXd& y) {
    if (chart_.rows() == 0) return false;
    const State x = chart_state(t, y);
    // With row subsets the best chart is needed anyway to see whether its rows changed.
    std::optional<VelocityChart> best;
    if (row_subsets_) best = best_chart(x);
    const bool rows_kept = !best || best->row_indices() == chart_.row_indices();
    if (rows_kept && chart_.relative_quality(chart_a_) >= 0.5) return false;
    const Eigen::VectorXd nu = x.aux;
    chart_ = best ? *best : best_chart(x);
    y = chart_.point(model_, x);
    set_chart_nu(y, nu);
    ++chart_changes_;
    return true;
  }

  long rejected_steps() const {
    // dopri5 with FSAL: one evaluation at each (re)start, six per attempted step.
    const long nonstiff_attempts = (nonstiff_evaluations_ - nonstiff_phases_) / 6;
    const long nonstiff_rejected =
        nonstiff_attempts -
        (counters_.steps - oscillation_counts_.stiff_steps - oscillation_counts_.oscillatory_steps);
    return stiff_rejected_ + oscillatory_rejected_ + std::max(0L, nonstiff_rejected);
  }

  void update_minimum(const Eigen::VectorXd& f) {
    for (int k = 0; k < m_; ++k) {
      auto& slot = rec_.min_constraint[static_cast<std::size_t>(k)];
      slot = std::min(slot, f(k));
      if (in_medium_[static_cast<std::size_t>(k)]) {
        auto& depth = episode_depth_[static_cast<std::size_t>(k)];
        depth = std::min(depth, f(k));
      }
    }
  }

  // nu: the chart's ν = N g at x (empty without kinematic rows).
  TrajectorySample sample(const State& x, std::string label, const Eigen::VectorXd& nu) {
    TrajectorySample s;
    s.x = x;
    s.label = std::move(label);
    Eigen::VectorXd would_be, acceleration;
    dense_qdd(x, acceleration, &would_be);
    s.f = rhs_point_.f;
    s.lambda = Eigen::VectorXd::Zero(m_);
    s.mu = Eigen::VectorXd::Zero(m_);
    s.impulse = Eigen::VectorXd::Zero(m_);
    s.extra.resize(m_ + nu.size());
    s.extra << opt_.N * s.f, nu;
    std::vector<int> rows;
    for (int k = 0; k < m_; ++k) {
      if (pushing_[static_cast<std::size_t>(k)] || is_held(k)) rows.push_back(k);
    }
    if (!rows.empty()) {
      // |∇f_k|_{A⁻¹}² is the diagonal of J A⁻¹ Jᵀ.
      const Eigen::VectorXd normal_norm =
          delassus(acting_point(rhs_point_), rows).W.diagonal().cwiseSqrt();
      for (std::size_t r = 0; r < rows.size(); ++r) {
        s.lambda(rows[r]) = would_be(rows[r]);
        s.mu(rows[r]) = would_be(rows[r]) * normal_norm(static_cast<Eigen::Index>(r));
      }
    }
    return s;
  }

  // At an event: the state where the phase ended, with its ν.
  void emit(const State& x, const std::string& label) {
    if (output_.wanted()) output_.deliver(sample(x, label, carried_nu_));
  }

  const Model& model_;
  const RunSettings& settings_;
  const WallTimeBudget wall_time_{std::chrono::steady_clock::now(), settings_.max_wall_time,
                                  settings_.on_progress};
  const Options& opt_;
  RunRecord& rec_;
  const int n_;
  const int m_;
  // The model's counts, asked once (each is a virtual call).
  const int switches_ = model_.switch_count();
  const int ku_ = model_.unilateral_kinematic_count();
  const int first_bilateral_ = model_.constraint_count() - model_.bilateral_count();
  std::vector<int> modes_;
  std::vector<char> in_medium_;
  std::vector<char> pushing_;
  // Some constraint is left ideal (Options::ideal), and the ideal ones held now, in order.
  const bool mixed_ =
      std::any_of(opt_.ideal.begin(), opt_.ideal.end(), [](char c) { return c != 0; });
  std::vector<int> held_;
  // Per kinematic row: whether its friction acts (two-sided rows always, one-sided rows where
  // g ≤ 0).
  std::vector<char> engaged_;
  // Some kinematic rows act only at times (one-sided or conditional rows).
  const bool rows_switch_ = model_.unilateral_kinematic_count() > 0 || [this] {
    for (int r = 0; r < model_.kinematic_count(); ++r) {
      if (model_.kinematic_condition(r) >= 0) return true;
    }
    return false;
  }();
  std::vector<double> damping_;  // row_damping() of the current phase
  // Several conditional rows, which coincide where their constraints touch together (a block on
  // two corners: both corners' horizontal velocities are ẋ + h θ̇ at θ = 0): the chart takes only
  // the rows whose friction acts, and of them only independent ones (best_chart).
  const bool row_subsets_ = [this] {
    int conditional = 0;
    for (int r = 0; r < model_.kinematic_count(); ++r) {
      if (model_.kinematic_condition(r) >= 0) ++conditional;
    }
    return conditional >= 2;
  }();
  // Coulomb friction (CaseInfo::coulomb_rows): the rows, sorted; the cone each one's viscous
  // friction is bounded by; per row, whether it is on the cone (sliding) since the last event.
  std::vector<int> coulomb_;
  FrictionCone cone_;
  std::vector<char> sliding_;
  std::vector<char> friction_pushed_;  // per row: its constraint was pushed at the last event
  const FrictionCone* cone() const { return coulomb_.empty() ? nullptr : &cone_; }
  Point point_;
  Point rhs_point_;
  mutable Point acting_point_;  // acting_point's result
  // The sparse form of the right-hand side (sparse_acceleration), where the model has one.
  bool sparse_rhs_ = false, sparse_jacobian_ = false;
  // Some constraint's spring follows a power law (ContactLaw::exponent ≠ 1).
  const bool power_law_ = std::any_of(opt_.medium.laws.begin(), opt_.medium.laws.end(),
                                      [](const ContactLaw& law) { return law.exponent != 1.0; });
  SparseTerms sparse_terms_, jacobian_terms_;
  State jacobian_state_;
  Eigen::VectorXd sparse_medium_;
  // The hot loop's buffers (chart_rate, probe, the Jacobian, the dense output), sized at the
  // first step.
  AccelerationWork<double> acceleration_work_;
  RealizationJacobianWork jacobian_work_;
  State rate_state_;
  Eigen::VectorXd rate_qdd_, probe_qdd_, probe_would_be_, probe_f_, probe_switching_;
  // The last two samples of each f_k in the current phase, to find its minima between samples.
  struct Trail {
    double t_before = 0.0, f_before = 0.0, t_prev = 0.0, f_prev = 0.0;
    int count = 0;
  };
  std::vector<Trail> trail_;
  State minimum_state_;
  Eigen::VectorXd minimum_f_;
  // ∫λ dt of the pushing constraints, λ_k = −N(α f̈_k + β ḟ_k + γ f_k) (the would-be reaction of
  // acceleration()), and its buffers.
  ImpulseQuadrature impulse_;
  State impulse_state_;
  Point impulse_point_;
  AccelerationWork<double> impulse_work_;
  Eigen::VectorXd impulse_qdd_, impulse_would_be_, impulse_medium_;
  SparseTerms impulse_terms_;
  Eigen::VectorXd system_y_, system_dy_;
  mutable Eigen::VectorXd dense_point_;
  PhaseCounters counters_;
  std::string first_dip_function_;  // the first dip that could not be searched

  // What event function i (the layout of probe()) measures, for the record's warnings.
  std::string event_function_name(Eigen::Index i) const {
    if (i < m_) return "f of constraint " + std::to_string(i);
    if (i < 2 * m_) return "the reaction of constraint " + std::to_string(i - m_);
    if (i < 2 * m_ + switches_) return "switching function " + std::to_string(i - 2 * m_);
    if (i < 2 * m_ + switches_ + ku_) {
      return "the velocity of kinematic row " + std::to_string(i - 2 * m_ - switches_);
    }
    return "the friction cone of kinematic row " +
           std::to_string(coulomb_[static_cast<std::size_t>(i - 2 * m_ - switches_ - ku_)]);
  }
  SampleOutput output_{settings_, model_.initial_state().t};
  long rhs_evaluations_ = 0;
  long nonstiff_evaluations_ = 0;
  long nonstiff_phases_ = 0;
  long jacobian_evaluations_ = 0;
  long probe_evaluations_ = 0;
  OscillationCounts oscillation_counts_;
  long stiff_rejected_ = 0;
  long steps_at_time_resolution_ = 0;  // stiff steps at the floor above the tolerance
  long oscillatory_rejected_ = 0;
  // spring_rate's workspace.
  State spring_state_;
  Eigen::VectorXd spring_force_, spring_qdd_;
  Eigen::PartialPivLU<Eigen::MatrixXd> spring_lu_;
  long chart_changes_ = 0;
  VelocityChart chart_;
  mutable Eigen::MatrixXd chart_a_;
  mutable Eigen::VectorXd chart_b_;
  // ν where the last phase ended, for the next phase and the event rows (recomputed from q̇ it
  // would carry q̇'s round-off times N).
  double carried_nu_time_ = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd carried_nu_;
};

}  // namespace
}  // namespace realization_detail

std::string RealizationSolver::description() const {
  return "The free system with the (alpha,beta,gamma)N Kelvin-Voigt medium in f < 0 (Deryabin & "
         "Kozlov 1995 (1.5)-(1.8)): medium or obstacle interaction; presets viscous (0,1,0), "
         "penalty (0,0,1), kozlov-impact (stiffness kappa N, damping 2k sqrt(N)); dop853 in the "
         "underdamped spring phases, rosenbrock4 with an AD Jacobian in the other stiff medium "
         "phases, dopri5 elsewhere; entries, exits and switches are events.";
}

std::vector<ParamSpec> RealizationSolver::parameters() const {
  std::vector<ParamSpec> params{
      {.name = "N",
       .default_value = 1e6,
       .min = 0.0,
       .max = kMaxRealizationN,
       .min_inclusive = false,
       .description =
           "realization parameter: stiffness gamma N, viscosity beta N, added mass alpha N"},
      {.name = "slip_beta",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e6,
       .description = "friction beta_t N on the slip of a conditional kinematic row (rolling "
                      "while in contact) while its constraint is in the medium"},
      kEventTimeToleranceSpec,
      kMaxStepsSpec,
      kMaxEventsSpec,
      kMaxStepFractionSpec,
      ideal_restitution_spec(),
      kContactDistanceTolSpec,
      kContactVelocityTolSpec,
  };
  const auto coefficients = model_coefficient_params();
  params.insert(params.begin() + 1, coefficients.begin(), coefficients.end());
  return params;
}

std::vector<ChoiceSpec> RealizationSolver::choices() const {
  std::vector<ChoiceSpec> choices = model_choices(
      "(alpha,beta,gamma) = (0,1,0), (0,0,1), or (0, 2k/sqrt(N), kappa); explicit "
      "--alpha/--beta/--gamma override it",
      "medium: the reaction has either sign; obstacle: it only pushes");
  choices.push_back({.name = "oscillation",
                     .options = {"dop853", "rosenbrock4"},
                     .default_value = "dop853",
                     .description =
                         "integrator of the medium phases whose spring is underdamped (alpha = 0, "
                         "beta^2 N w <= 4 gamma): dop853 (order 8, tens of steps per fast period) "
                         "or rosenbrock4 (as the stiff phases; thousands of steps per period)"});
  choices.push_back(realize_choice());
  choices.push_back(contact_scale_choice());
  return choices;
}

void RealizationSolver::finalize(ParamValues& params, ChoiceValues& choices,
                                 const std::vector<std::string>& assigned) const {
  finalize_realized_set(params, choices, assigned, "solver realization",
                        {"ideal_restitution", "contact_distance_tol", "contact_velocity_tol"});
  const std::string preset = choices.at("preset");
  if (preset == "kozlov-impact") {
    // Stiffness κN and damping force 2k√N ḟ (Kozlov 1992 §5): γ = κ and βN = 2k√N.
    apply_model_preset(params, choices, assigned, "solver realization", 0.0,
                       2.0 * params.at("k") / std::sqrt(params.at("N")), params.at("kappa"));
  } else {
    apply_model_preset(params, choices, assigned, "solver realization", 0.0,
                       preset == "viscous" ? 1.0 : 0.0, preset == "penalty" ? 1.0 : 0.0);
  }
}

std::string RealizationSolver::limit_model(const ParamValues& params,
                                           const ChoiceValues& choices) const {
  return model_limit_name(params, choices);
}

std::vector<std::string> RealizationSolver::extra_columns(const Model& model,
                                                          const RunSettings&) const {
  // N·f_k, to lay over z(t) of the limit model (Deryabin & Kozlov 1995 (2.6): f(q_N(t)) = z(t)/N +
  // o(1/N)).
  // N·g_r for kinematic rows: the realization's multiplier, whose limit is the state λ of the
  // μ = β/α family (Kozlov 1992 (6)–(7)).
  std::vector<std::string> names;
  for (int k = 0; k < model.constraint_count(); ++k) names.push_back("Nf" + std::to_string(k));
  for (int r = 0; r < model.kinematic_count(); ++r) names.push_back("Ng" + std::to_string(r));
  return names;
}

RunRecord RealizationSolver::solve(const Model& model, const RunSettings& settings) const {
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;
  const double N = p.at("N");
  if (model.kinematic_count() > 0) check_kinematic_model(model, settings, name(), true);
  if (model.bilateral_count() > 0) check_bilateral_model(model, settings, name());
  std::vector<char> ideal;
  if (settings.solver_choices.count("realize")) {
    ideal = realized_constraints(model, settings, "solver realization");
    for (char& flag : ideal) flag = flag != 0 ? 0 : 1;
  }
  // The normal displacement in the medium scales like 1/N (f = z/N, Deryabin & Kozlov 1995
  // (2.6); a static load on a spring, load/(γN w)): the absolute tolerance of positions is scaled
  // with it, so that N·f is resolved to the same relative accuracy for every N. In the stiff
  // phases velocities get atol/√N where the normal velocity in the medium falls with N (1/N in a
  // viscous one, still resolved to 1e-8 relative at N = 1e12; atol/N would sit at the round-off
  // level of velocity updates that carry O(1) forces, and the step size would collapse once the
  // normal oscillation of a damped spring has decayed), and atol where an underdamped spring sets
  // the motion (α = 0, β²N < 4γ: the penalty preset, the Kozlov wall with k² < κ): a body that
  // arrives at speed v rebounds at about v, so velocities of order 1 are the medium's, and
  // atol/√N sat below the round-off of the spring force γN f, a difference of O(1) coordinates.
  // The balls ahead of a penalty chain's compression wave, all but at rest, then held every step
  // to that noise (docs/internals.md: the steps this took and takes on ball chains).
  const double alpha = p.at("alpha"), beta = p.at("beta"), gamma = p.at("gamma");
  const bool spring_motion =
      alpha == 0.0 && gamma > 0.0 && beta * beta * std::max(1.0, N) < 4.0 * gamma;
  realization_detail::Options options{
      .N = N,
      .medium = {.mass = alpha * N,
                 .damping = beta * N,
                 .stiffness = gamma * N,
                 .obstacle = settings.solver_choices.at("interaction") == "obstacle"},
      .slip_damping = p.at("slip_beta") * N,
      .event_time_tol = p.at("event_time_tol"),
      .max_steps = p.at("max_steps"),
      .max_events = p.at("max_events"),
      .max_step_fraction = p.at("max_step_fraction"),
      .atol_effective = settings.atol / std::max(1.0, N),
      .atol_velocity = spring_motion ? settings.atol : settings.atol / std::sqrt(std::max(1.0, N)),
      .explicit_oscillation = settings.solver_choices.at("oscillation") == "dop853",
      .ideal = ideal,
      .ideal_restitution = ideal.empty() ? 0.0 : p.at("ideal_restitution"),
      .distance_tol = ideal.empty() ? 0.0 : p.at("contact_distance_tol"),
      .velocity_tol = ideal.empty() ? 0.0 : p.at("contact_velocity_tol"),
  };
  // Kept empty where every law is the default one (Medium::laws).
  const std::vector<ContactLaw> laws = contact_laws(model, settings, "solver realization");
  if (std::any_of(laws.begin(), laws.end(),
                  [](const ContactLaw& l) { return l != ContactLaw{}; })) {
    options.medium.laws = laws;
  }
  if (model.constraint_count() == 0) {
    // Kinematic constraints only: no coordinate is a penetration of order 1/N, and the chart's
    // ν = N g is of order 1 (its absolute tolerance in the stiff phases is N·atol, that of g);
    // the scaled absolute tolerances would only force tiny steps wherever a coordinate crosses
    // zero.
    options.atol_effective = settings.atol;
    options.atol_velocity = settings.atol;
  }
  RunRecord record = start_record(model, name(), settings);
  // The absolute tolerances the integrator applies, named by what they bound: a penetration is
  // of order 1/N and the normal velocity in the medium of order 1/√N, so atol is scaled for them.
  record.tolerances = {{"rtol", settings.rtol},
                       {"atol", settings.atol},
                       {"atol_positions", options.atol_effective},
                       {"atol_velocities_in_medium", options.atol_velocity},
                       {"event_time_tol", options.event_time_tol}};
  record.diagnostics["tolerance_meaning"] = {
      {"atol_positions",
       model.constraint_count() == 0
           ? "atol: the absolute tolerance of every component (kinematic constraints only)"
           : "atol / max(1, N): the absolute tolerance of the positions, whose penetration of "
             "the medium is of order 1/N (and of every component outside the stiff phases)"},
      {"atol_velocities_in_medium",
       model.constraint_count() == 0 ? "atol: as atol_positions"
       : spring_motion
           ? "atol: the absolute tolerance of the velocities in the stiff phases, where the "
             "normal velocity in an underdamped spring medium is of order 1"
           : "atol / sqrt(max(1, N)): the absolute tolerance of the velocities in the stiff "
             "phases, where the normal velocity is of order 1/sqrt(N) or less"}};
  record.episode_definition =
      "a stay in the medium: from f crossing 0 downward (or the start, inside) to f crossing 0 "
      "upward";
  if (!ideal.empty()) {
    record.tolerances["contact_distance_tol"] = options.distance_tol;
    record.tolerances["contact_velocity_tol"] = options.velocity_tol;
    record.episode_definition +=
        "; for a constraint left ideal (realize), from a contact (or an impact) to the lift_off "
        "event, where its multiplier lambda reaches 0 from above";
  }
  realization_detail::Run run(model, settings, options, record);
  run.execute();
  finish_record(record, model, started, run.output_seconds());
  return record;
}

}  // namespace crbench
