// The ideal classical model, event-driven. Between events the motion is smooth: free, or on the
// active constraints with the multipliers of Deryabin & Kozlov 1995 (1.4). Smooth phases are
// integrated by dopri5 with dense output (Boost.Odeint's method and step control, computed as
// Odeint does in solvers/dopri5.hpp) or DOP853; event functions are sampled on the dense output
// and their crossings refined by TOMS 748 (solvers/events.hpp). Events:
//  - contact: an inactive f_k reaches 0;
//  - lift_off: the multiplier λ_k of an active constraint reaches 0 from above;
//  - switch: a switching function of a piecewise force changes sign (the mode flips there);
//  - kinematic_contact / kinematic_release: a one-sided kinematic constraint a q̇ + b ≥ 0
//    (Berezinskaya, Sorokina & Kugushev 2003 (1.5)) becomes active where g = a q̇ + b reaches 0
//    from above, and is released where its multiplier ν reaches 0 from above. g is continuous
//    along a motion that keeps g ≥ 0, so no velocity jump is needed there (ibid. §8);
//  - horizon.
// At each event the contact set is resolved anew: constraints arriving with ḟ < 0 get a Newton
// impact in the kinetic metric (Kugushev & Sorokina 2002 (1.2)–(1.4)), then the constraints at rest
// on Σ are activated by the acceleration-level complementarity 0 ≤ λ ⊥ f̈ ≥ 0.
#include "crbench/solvers/event_driven.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <sstream>

#include "crbench/solvers/dop853.hpp"
#include "crbench/solvers/dopri5.hpp"
#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/impact_law.hpp"
#include "crbench/solvers/impulse_process.hpp"
#include "crbench/solvers/impulse_quadrature.hpp"
#include "crbench/solvers/lcp.hpp"
#include "crbench/solvers/limit_z.hpp"
#include "crbench/solvers/phase.hpp"

namespace crbench {
// Named, and anonymous inside: the unity build compiles this file in one unit with other
// solvers whose helpers have the same names (Options, Run, OdeState).
namespace event_driven_detail {
namespace {

using OdeState = std::vector<double>;

struct Options {
  ImpactLaw impact_law;
  // impact_law energetic: a contact with Coulomb friction that strikes, or whose slip has no
  // consistent reaction (Painlevé), takes the impulse process (solvers/impulse_process.hpp).
  bool frictional_process = false;
  double distance_tol;
  double velocity_tol;
  double event_time_tol;
  double accumulation_count;
  double accumulation_window;
  double max_steps;
  double max_events;
  double max_step_fraction;
  // The smooth phases' stepper (the choice `integrator`).
  PhaseIntegrator integrator = PhaseIntegrator::dopri5;
  // The (α,β,γ) limit model of Deryabin & Kozlov 1995 Theorem 1 instead of the classical model;
  // with α = β = 0 it is the classical model and this stays empty.
  std::optional<LimitCoefficients> limit;
  HolonomicExtras extras;
};

// The ODE state is (q, q̇, aux): aux holds z_k then z'_k of the limit model, or nothing; x's
// storage is reused. Plain loops: Eigen's assignment from a Map (or a memmove) costs more than
// copying the few values.
void unpack(double t, const double* y, Eigen::Index size, int n, State& x) {
  x.t = t;
  size_to(x.q, n);
  size_to(x.v, n);
  size_to(x.aux, size - 2 * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x.q(i) = y[i];
    x.v(i) = y[n + i];
  }
  for (Eigen::Index i = 2 * n; i < size; ++i) x.aux(i - 2 * n) = y[i];
}

OdeState pack(const State& x) {
  const Eigen::Index n = x.q.size();
  OdeState y(static_cast<std::size_t>(2 * n + x.aux.size()));
  Eigen::Map<Eigen::VectorXd>(y.data(), n) = x.q;
  Eigen::Map<Eigen::VectorXd>(y.data() + n, n) = x.v;
  Eigen::Map<Eigen::VectorXd>(y.data() + 2 * n, x.aux.size()) = x.aux;
  return y;
}

// Thrown by the located jam that the run continues past (impact_law energetic): it ends the
// phase there.
struct JamReached {};

// A phase's dense output that closes in on a dynamic jam (Génot & Brogliato 1999: a slip whose
// contact problem loses its solution along the motion, Painlevé's p reaching 0, where the
// reaction grows without bound and its impulse stays finite). No step can end past that time:
// beyond it the sliding contacts' problem has no solution, and the right-hand side throws
// painleve_paradox. Where a step's stages get there while the last accepted state is consistent
// (`consistent`), the step is tried again from that state with a quarter of its length, so the
// accepted steps approach the first such time; `located`(t, y, dt) throws once the failing step dt
// is short enough, the time then bracketed in (t, t + dt]. A failure from an inconsistent state,
// or any other, passes through.
template <class Dense, class Consistent, class Located>
class JamApproach {
 public:
  JamApproach(Dense& dense, Consistent consistent, Located located)
      : dense_(dense), consistent_(std::move(consistent)), located_(std::move(located)) {}

  std::pair<double, double> step() {
    while (true) {
      try {
        return dense_.step();
      } catch (const RunFailure& failure) {
        if (failure.status != Status::painleve_paradox) throw;
        auto& stepper = dense_.stepper();
        const double t = stepper.current_time(), dt = stepper.step_size();
        y_ = current_state_of(stepper);
        if (!consistent_(t, y_)) throw;
        located_(t, y_, dt);
        stepper.initialize(y_, t, dt / 4.0);
      }
    }
  }
  void at(double t, State& x) const { dense_.at(t, x); }

 private:
  Dense& dense_;
  Consistent consistent_;
  Located located_;
  Eigen::VectorXd y_;
};

// The event functions g of a phase, in six blocks: per constraint k, f_k off the constraint
// (contact) and λ_k or −z_k on it (lift-off); the switching functions; for the limit model z'_k
// (a maximum of z, to catch a double zero) and λ_k (its first zero, for the propositions and the
// delay); per one-sided kinematic row, g_r while inactive (contact) and ν_r while active (release);
// with Coulomb friction, per kinematic row, the cone's margin μλ − |ν_r| while it sticks and its
// slip s g_r while it slides (1 for the other rows).
class EventLayout {
 public:
  enum class Block { constraint, switching, z_maximum, lambda_zero, kinematic, friction };
  struct Entry {
    Block block;
    int index;  // within its block
  };

  // `coulomb`: the kinematic rows (all of them, by index), when some carry Coulomb friction;
  // 0 otherwise.
  EventLayout(int constraints, int switches, int unilateral_kinematic, int coulomb)
      : m_(constraints), switches_(switches), kinematic_(unilateral_kinematic), coulomb_(coulomb) {}

  Eigen::Index size() const { return 3 * m_ + switches_ + kinematic_ + coulomb_; }
  Eigen::Index constraint(int k) const { return k; }
  Eigen::Index switching(int j) const { return m_ + j; }
  Eigen::Index z_maximum(int k) const { return m_ + switches_ + k; }
  Eigen::Index lambda_zero(int k) const { return 2 * m_ + switches_ + k; }
  Eigen::Index kinematic(int r) const { return 3 * m_ + switches_ + r; }
  // Row r's Coulomb mode: the cone reached while it sticks, the slip at 0 while it slides.
  Eigen::Index friction(int r) const { return 3 * m_ + switches_ + kinematic_ + r; }

  Entry entry(Eigen::Index i) const {
    const auto at = [i](Eigen::Index start) { return static_cast<int>(i - start); };
    if (i < m_) return {Block::constraint, at(0)};
    if (i < switching(switches_)) return {Block::switching, at(switching(0))};
    if (i < z_maximum(m_)) return {Block::z_maximum, at(z_maximum(0))};
    if (i < lambda_zero(m_)) return {Block::lambda_zero, at(lambda_zero(0))};
    if (i < kinematic(kinematic_)) return {Block::kinematic, at(kinematic(0))};
    return {Block::friction, at(friction(0))};
  }

 private:
  int m_, switches_, kinematic_, coulomb_;
};

std::string join(const std::vector<int>& v) {
  std::string s;
  for (const int i : v) s += (s.empty() ? "" : ",") + std::to_string(i);
  return "{" + s + "}";
}

class Run {
 public:
  Run(const Model& model, const RunSettings& settings, const Options& options, RunRecord& record)
      : model_(model),
        settings_(settings),
        opt_(options),
        rec_(record),
        n_(model.dof()),
        m_(model.constraint_count()),
        ku_(model.unilateral_kinematic_count()),
        bilateral_(model.bilateral_count()),
        kinematic_(model.kinematic_count()),
        switches_(model.switch_count()),
        events_(m_, switches_, ku_, model.has_coulomb_friction() ? model.kinematic_count() : 0) {
    for (int r = ku_; r < model.kinematic_count(); ++r) {
      if (model.kinematic_condition(r) < 0) kinematic_rows_.push_back(r);
    }
    slip_.assign(static_cast<std::size_t>(kinematic_), 0);
    for (const int r : model.info().coulomb_rows) coulomb_rows_.push_back(r);
    select_rows_ = static_cast<int>(kinematic_rows_.size()) < model.kinematic_count();
    if (opt_.limit) z_.emplace(*opt_.limit, m_, rec_);
  }

  void execute() {
    State x = opt_.extras.start ? *opt_.extras.start : model_.initial_state();
    // Bilateral constraints stay in the active set from the start (their data satisfy Kozlov
    // 1992 condition (10): EventDrivenSolver::refusal).
    for (int k = m_ - bilateral_; k < m_; ++k) active_.push_back(k);
    if (z_) x.aux = z_->initial_aux();
    modes_ = model_.modes_at(x);
    rec_.min_constraint.assign(static_cast<std::size_t>(m_),
                               std::numeric_limits<double>::infinity());
    impulse_.start(m_, x.t);
    track_minimum(x);
    end_run_on_failure(rec_, [&] {
      const bool start_impact = resolve_contacts(x, {});
      resolve_kinematic(x, resting_kinematic_rows(x), start_impact);
      resolve_friction(x, {});
      resolve_inconsistent_slip(x);
      while (x.t < settings_.t_end) {
        const PhaseEnd end = integrate_phase(x);
        if (end.horizon) break;
        if (jam_) {
          emit(x, "dynamic_jam-");
          resolve_jam(x);
          emit(x, "dynamic_jam+");
          continue;
        }
        std::string label;
        for (const Eigen::Index i : end.crossed) {
          if (!label.empty()) label += '&';
          label += event_name(i);
        }
        emit(x, label + "-");
        std::vector<int> leaving;
        std::vector<int> kinematic_entering;
        std::vector<int> friction_crossed;
        for (const Eigen::Index i : end.crossed) {
          const auto [block, index] = events_.entry(i);
          switch (block) {
            case EventLayout::Block::kinematic:
              if (kinematic_active(index)) {
                // ν has reached 0: released here, not a candidate of resolve_kinematic.
                kinematic_rows_.erase(
                    std::find(kinematic_rows_.begin(), kinematic_rows_.end(), index));
                rec_.events.push_back(
                    {.t = x.t, .kind = EventKind::kinematic_release, .index = index});
              } else {
                kinematic_entering.push_back(index);
              }
              break;
            case EventLayout::Block::friction:
              friction_crossed.push_back(index);
              break;
            case EventLayout::Block::switching: {
              const auto j = static_cast<std::size_t>(index);
              modes_[j] = -modes_[j];
              rec_.events.push_back({.t = x.t, .kind = EventKind::switch_function, .index = index});
              break;
            }
            case EventLayout::Block::z_maximum:
              if (is_active(index)) z_->check_touch(x, index);
              break;
            case EventLayout::Block::lambda_zero:
              z_->lambda_crossed_zero(index, x.t);
              break;
            case EventLayout::Block::constraint:
              if (!is_active(index)) break;
              if (z_carries(index)) {
                const double lambda = lambda_of(x, index);
                if (!z_->lifts_off_at_zero(x, index, lambda, last_mu_)) break;
              }
              active_.erase(std::find(active_.begin(), active_.end(), index));
              leaving.push_back(index);
              record_lift_off(x.t, index);
              break;
          }
        }
        if (static_cast<double>(rec_.events.size()) > opt_.max_events) {
          throw RunFailure{Status::too_many_events, "more than " + format_number(opt_.max_events) +
                                                        " events before the horizon"};
        }
        const bool impact = resolve_contacts(x, leaving);
        resolve_kinematic(x, kinematic_entering, impact);
        resolve_friction(x, friction_crossed);
        resolve_inconsistent_slip(x);
        note_lambda_sign(x);
        emit(x, label + "+");
      }
    });
    // Where the run failed inside a phase, the state it reached there, not the phase's start.
    const bool failed_in_phase = rec_.status != Status::ok && counters_.reached;
    rec_.final_state = jam_ ? *jam_ : failed_in_phase ? *counters_.reached : x;
    if (z_) z_->finish(x, active_);
    rec_.constraint_impulse.assign(impulse_.total().data(),
                                   impulse_.total().data() + impulse_.total().size());
    rec_.rhs_evaluations = rhs_evaluations_;
    rec_.diagnostics["impulse_quadrature_evaluations"] = impulse_.evaluations();
    rec_.diagnostics["event_function_evaluations"] = probe_evaluations_;
    rec_.diagnostics["impacts"] = impacts_;
    rec_.diagnostics["max_projection_correction"] = max_projection_;
    if (kinematic_ > 0) rec_.diagnostics["max_kinematic_drift"] = kinematic_drift_;
    if (bilateral_ > 0) {
      rec_.diagnostics["max_bilateral_drift"] = bilateral_drift_;
      rec_.diagnostics["max_bilateral_rate_drift"] = bilateral_rate_drift_;
    }
    rec_.diagnostics["max_event_bracket"] = counters_.max_bracket;
    record_dips(counters_, first_dip_function_, rec_);
    rec_.steps = counters_.steps;
  }

 private:
  // The case's point, with the extra force of the holonomic limit (HolonomicExtras).
  void evaluate(const State& x, Point& p) {
    evaluate_all_rows(x, p);
    capture_sliding_rows(p);
    if (select_rows_) keep_kinematic_rows(p, kinematic_rows_);
  }
  // The rows a of the sliding Coulomb rows at p (every row evaluated), for solve_constrained.
  void capture_sliding_rows(const Point& p) {
    if (sliding_.empty()) return;
    sliding_a_.resize(static_cast<Eigen::Index>(sliding_.size()), n_);
    for (std::size_t j = 0; j < sliding_.size(); ++j) {
      sliding_a_.row(static_cast<Eigen::Index>(j)) = p.a.row(sliding_[j]);
    }
  }
  // The same with every kinematic row, active or not.
  void evaluate_all_rows(const State& x, Point& p) const {
    model_.evaluate(x, modes_, p);
    if (opt_.extras.extra_force) p.Q += opt_.extras.extra_force(x);
  }

  bool kinematic_active(int r) const {
    return std::find(kinematic_rows_.begin(), kinematic_rows_.end(), r) != kinematic_rows_.end();
  }

  // The one-sided kinematic rows with g = 0 (within contact_velocity_tol) at the start: they
  // become active if their reaction pushes.
  std::vector<int> resting_kinematic_rows(const State& x) const {
    std::vector<int> rows;
    if (ku_ == 0) return rows;
    Point full;
    evaluate_all_rows(x, full);
    for (int r = 0; r < ku_; ++r) {
      if (std::abs(full.g(r)) <= opt_.velocity_tol) rows.push_back(r);
    }
    return rows;
  }

  // The one-sided kinematic rows in force after an event, from the acceleration-level
  // complementarity 0 ≤ ν ⊥ ġ ≥ 0 (Berezinskaya, Sorokina & Kugushev 2003 (1.5)) over the
  // candidates: the rows reaching g = 0 (`entering`), the rows already active, and after an
  // impact every row left at g = 0. With the other rows (`base`) and the active constraints
  // fixed, q̈ is affine in the candidates' ν, so ġ_c = b + W ν with b from the motion without
  // them and W's columns from a unit force along each; the LCP is solved exactly
  // (solvers/lcp.hpp), and a row whose ν and ġ both vanish is left inactive. An active row that
  // an impact has moved off g = 0 is released.
  void resolve_kinematic(const State& x, const std::vector<int>& entering, bool after_impact) {
    if (ku_ == 0) return;
    const std::vector<int> before = kinematic_rows_;
    Point full;
    evaluate_all_rows(x, full);
    const Eigen::VectorXd g = full.g;
    std::vector<int> base, candidates = entering;
    for (const int r : kinematic_rows_) {
      if (r >= ku_) {
        base.push_back(r);
      } else if (std::abs(g(r)) <= opt_.velocity_tol) {
        candidates.push_back(r);
      }
    }
    if (after_impact) {
      for (int r = 0; r < ku_; ++r) {
        if (std::abs(g(r)) <= opt_.velocity_tol) candidates.push_back(r);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    kinematic_rows_ = base;
    if (!candidates.empty()) {
      const auto count = static_cast<Eigen::Index>(candidates.size());
      Eigen::MatrixXd a_c(count, n_);
      Eigen::VectorXd g_rate_c(count);
      for (Eigen::Index j = 0; j < count; ++j) {
        a_c.row(j) = full.a.row(candidates[static_cast<std::size_t>(j)]);
        g_rate_c(j) = full.g_rate(candidates[static_cast<std::size_t>(j)]);
      }
      Point without = full;
      keep_kinematic_rows(without, base);
      const auto acceleration = [&](const Point& p) {
        const ConstrainedAcceleration acc = constrained_acceleration(p, active_);
        if (!acc.ok) throw RunFailure{acc.status, acc.reason};
        return acc.qdd;
      };
      const Eigen::VectorXd qdd0 = acceleration(without);
      Eigen::MatrixXd W(count, count);
      for (Eigen::Index j = 0; j < count; ++j) {
        Point pushed = without;
        pushed.Q += a_c.row(j).transpose();
        W.col(j) = a_c * (acceleration(pushed) - qdd0);
      }
      const double terms = (a_c.cwiseAbs() * qdd0.cwiseAbs() + g_rate_c.cwiseAbs()).maxCoeff();
      const auto lcp = solve_lcp(W, a_c * qdd0 + g_rate_c, 1e-12, terms);
      if (!lcp) {
        throw RunFailure{Status::lcp_failure,
                         "no set of one-sided kinematic rows solves the complementarity at t = " +
                             format_number(x.t) + " for rows " + join(candidates)};
      }
      for (Eigen::Index j = 0; j < count; ++j) {
        if (lcp->x(j) > 0.0) kinematic_rows_.push_back(candidates[static_cast<std::size_t>(j)]);
      }
      std::sort(kinematic_rows_.begin(), kinematic_rows_.end());
    }
    for (int r = 0; r < ku_; ++r) {
      const bool was = std::find(before.begin(), before.end(), r) != before.end();
      if (was != kinematic_active(r)) {
        rec_.events.push_back(
            {.t = x.t,
             .kind = was ? EventKind::kinematic_release : EventKind::kinematic_contact,
             .index = r});
      }
      if (!kinematic_active(r) && g(r) < -opt_.velocity_tol) {
        throw RunFailure{Status::kinematic_violation,
                         "one-sided kinematic constraint " + std::to_string(r) + " has g = " +
                             format_number(g(r)) + " < 0 at t = " + format_number(x.t)};
      }
    }
  }

  // Event functions of the current phase (solvers/phase.hpp): f_k for the constraints not in
  // contact (contact), λ_k for those in contact (lift-off), then the switching functions.
  void probe(const State& x, Eigen::VectorXd& g) {
    ++probe_evaluations_;
    if (active_.empty() && ku_ == 0) {
      // In flight the events are the constraint values and the switching functions: f alone,
      // not the whole point. The point's f is the value part of the same case function at a
      // dual type, the same operations on the same doubles.
      g.setOnes(events_.size());
      model_.constraint_values(x.t, x.q, probe_f_);
      note_probed(x);
      for (int k = 0; k < m_; ++k) {
        if (!is_bilateral(k)) g(events_.constraint(k)) = probe_f_(k);
      }
      probe_switching(x, g);
      return;
    }
    evaluate_all_rows(x, point_);
    probe_f_ = point_.f;
    note_probed(x);
    Eigen::VectorXd& kinematic_g = probe_kinematic_g_;
    kinematic_g = point_.g;  // every row, before the inactive are dropped
    capture_sliding_rows(point_);
    if (select_rows_) keep_kinematic_rows(point_, kinematic_rows_);
    g.setOnes(events_.size());
    Eigen::VectorXd& lambda_active = lambda_active_;
    if (!active_.empty() || ku_ > 0) {
      const ConstrainedAcceleration& acc = probe_acceleration_;
      solve_constrained(point_, false, probe_acceleration_);
      lambda_active = acc.lambda;
      probe_friction(kinematic_g, acc, g);
      if (ku_ > 0) {
        for (int r = 0; r < ku_; ++r) {
          const auto at = std::find(kinematic_rows_.begin(), kinematic_rows_.end(), r);
          g(events_.kinematic(r)) = at == kinematic_rows_.end()
                                        ? kinematic_g(r)
                                        : acc.kinematic_lambda(at - kinematic_rows_.begin());
        }
      }
    }
    // On the constraint, the limit model's lift-off candidate is where z reaches 0 from below.
    for (int k = 0; k < m_; ++k) {
      if (is_bilateral(k)) continue;  // never an event
      const auto it = std::find(active_.begin(), active_.end(), k);
      if (it == active_.end()) {
        g(events_.constraint(k)) = point_.f(k);
        continue;
      }
      const double lambda = lambda_active(it - active_.begin());
      g(events_.constraint(k)) = z_carries(k) ? z_->lift_off_function(x, k) : lambda;
      if (z_carries(k)) {
        if (const auto z_rate = z_->z_maximum_function(x, k)) g(events_.z_maximum(k)) = *z_rate;
        g(events_.lambda_zero(k)) = lambda;
      }
    }
    probe_switching(x, g);
  }

  // The probe's f (probe_f_) is of the state (t, q) kept here: track_minimum takes it at the
  // same sample instead of evaluating the constraints again.
  void note_probed(const State& x) {
    probed_t_ = x.t;
    probed_q_ = x.q;
  }
  bool probed(const State& x) const {
    if (probed_t_ != x.t || probed_q_.size() != x.q.size()) return false;
    for (Eigen::Index i = 0; i < x.q.size(); ++i) {
      if (probed_q_(i) != x.q(i)) return false;
    }
    return true;
  }

  void probe_switching(const State& x, Eigen::VectorXd& g) {
    const int S = switches_;
    if (S == 0) return;
    model_.switching_values(x, probe_switching_);
    for (int j = 0; j < S; ++j)
      g(events_.switching(j)) = modes_[static_cast<std::size_t>(j)] * probe_switching_(j);
  }

  bool dynamic_z() const { return z_ && z_->dynamic(); }
  // The limit model's z decides constraint k's lift-off (not a constraint left ideal).
  bool z_carries(int k) const { return z_ && z_->carries(k); }
  bool is_bilateral(int k) const { return k >= m_ - bilateral_; }

  // What event function i measures, for the record's warnings.
  std::string event_function_name(Eigen::Index i) const {
    const auto [block, index] = events_.entry(i);
    const std::string k = std::to_string(index);
    switch (block) {
      case EventLayout::Block::kinematic:
        return "the velocity of kinematic row " + k;
      case EventLayout::Block::friction:
        return slip_[static_cast<std::size_t>(index)] == 0
                   ? "the friction cone's margin of kinematic row " + k
                   : "the slip velocity of kinematic row " + k;
      case EventLayout::Block::switching:
        return "switching function " + k;
      case EventLayout::Block::z_maximum:
        return "z' of constraint " + k;
      case EventLayout::Block::lambda_zero:
        return "lambda of constraint " + k;
      case EventLayout::Block::constraint:
        break;
    }
    if (!is_active(index)) return "f of constraint " + k;
    return (z_carries(index) ? "z of constraint " : "lambda of constraint ") + k;
  }

  std::string event_name(Eigen::Index i) const {
    const auto [block, index] = events_.entry(i);
    switch (block) {
      case EventLayout::Block::kinematic:
        return kinematic_active(index) ? "kinematic_release" : "kinematic_contact";
      case EventLayout::Block::friction:
        return slip_[static_cast<std::size_t>(index)] == 0 ? "slip" : "stick";
      case EventLayout::Block::switching:
        return "switch";
      case EventLayout::Block::z_maximum:
        return "z_maximum";
      case EventLayout::Block::lambda_zero:
        return "lambda_zero";
      case EventLayout::Block::constraint:
        break;
    }
    if (!is_active(index)) return "contact";
    return z_carries(index) ? "z_zero" : "lift_off";
  }

  double lambda_of(const State& x, int k) {
    evaluate(x, point_);
    const ConstrainedAcceleration& acc = accelerate(point_, active_);
    const auto it = std::find(active_.begin(), active_.end(), k);
    last_mu_ = acc.mu(it - active_.begin());
    return acc.lambda(it - active_.begin());
  }

  // The constrained acceleration at p for the active set `active`, in the run's workspace and
  // output (no allocation once they have their sizes); a failure ends the run. The result is
  // valid until the next call.
  const ConstrainedAcceleration& accelerate(const Point& p, const std::vector<int>& active) {
    if (&active == &active_) {
      solve_constrained(p, true, acceleration_);
      return acceleration_;
    }
    constrained_acceleration(p, active, workspace_, acceleration_);
    if (!acceleration_.ok) throw RunFailure{acceleration_.status, acceleration_.reason};
    return acceleration_;
  }

  // λ may also stop being positive by a jump (a force switch), not only by crossing 0.
  void note_lambda_sign(const State& x) {
    if (!dynamic_z() || active_.empty()) return;
    evaluate(x, point_);
    const ConstrainedAcceleration& acc = accelerate(point_, active_);
    for (std::size_t r = 0; r < active_.size(); ++r) {
      z_->note_lambda(active_[r], x.t, acc.lambda(static_cast<Eigen::Index>(r)));
    }
  }

  bool is_active(Eigen::Index k) const {
    return std::find(active_.begin(), active_.end(), static_cast<int>(k)) != active_.end();
  }

  // A constraint that has just been left at rest (ḟ ≈ 0) arms only beyond contact_distance_tol,
  // so noise around f = 0 is not taken for a new contact; one that bounced off (ḟ > tol) arms as
  // soon as f > 0, however low its apex.
  std::vector<double> arm_thresholds(const State& x) {
    evaluate(x, point_);
    const Eigen::VectorXd rate = point_.constraint_rate(x.v);
    std::vector<double> thresholds(static_cast<std::size_t>(events_.size()), 0.0);
    for (int k = 0; k < m_; ++k) {
      if (!is_active(k) && rate(k) <= opt_.velocity_tol) {
        thresholds[static_cast<std::size_t>(events_.constraint(k))] = opt_.distance_tol;
      }
    }
    return thresholds;
  }

  // λ of the active constraints at time t of a phase's dense output (0 for the others).
  template <class Dense>
  void reaction(const Dense& dense, double t, Eigen::VectorXd& lambda) {
    dense.at(t, impulse_state_);
    evaluate(impulse_state_, impulse_point_);
    solve_constrained(impulse_point_, false, impulse_acceleration_);
    lambda.setZero(m_);
    for (std::size_t r = 0; r < active_.size(); ++r) {
      lambda(active_[r]) = impulse_acceleration_.lambda(static_cast<Eigen::Index>(r));
    }
  }

  PhaseEnd integrate_phase(State& x) {
    if (!active_.empty()) project_onto_constraints(x);
    impulse_.start(m_, x.t);
    // dy/dt at (t, y) of the phase: q' = v, v' = the constrained acceleration, and the limit
    // model's z-equations.
    const auto rate = [this](double t, const double* y, Eigen::Index size, double* dy) {
      ++rhs_evaluations_;
      unpack(t, y, size, n_, rhs_state_);
      evaluate(rhs_state_, rhs_point_);
      const ConstrainedAcceleration& acc = rhs_acceleration_;
      solve_constrained(rhs_point_, true, rhs_acceleration_);
      if (!all_finite(acc.qdd)) {
        throw RunFailure{Status::non_finite, "non-finite acceleration at t = " + format_number(t)};
      }
      std::fill(dy, dy + size, 0.0);
      for (int i = 0; i < n_; ++i) {
        dy[i] = y[n_ + i];
        dy[n_ + i] = acc.qdd(i);
      }
      if (dynamic_z()) z_->derivative(active_, acc.lambda, y + 2 * n_, dy + 2 * n_);
    };
    const double max_dt =
        opt_.max_step_fraction * std::max(settings_.t_end - model_.initial_state().t, 1e-300);
    const auto size = static_cast<Eigen::Index>(2 * n_ + x.aux.size());

    // A constraint not in contact whose f has gone below −contact_distance_tol without having
    // been seen positive was crossed unseen: a failure, never a silent penetration.
    const auto inspect = [this](const State& xs, const Eigen::VectorXd& g,
                                const std::vector<char>& armed) {
      for (int k = 0; k < m_; ++k) {
        if (!armed[static_cast<std::size_t>(k)] && !is_active(k) && g(k) < -opt_.distance_tol) {
          throw RunFailure{Status::missed_contact, "constraint " + std::to_string(k) +
                                                       " reached f = " + format_number(g(k)) +
                                                       " at t = " + format_number(xs.t) +
                                                       " without a located contact"};
        }
      }
      // The sample's f from its probe, unless a root search has probed other states since.
      if (probed(xs)) {
        track_minimum(xs, probe_f_);
      } else {
        track_minimum(xs);
      }
      if (dynamic_z()) z_->track_extreme(xs, active_);
    };
    const PhaseControl control{.t_end = settings_.t_end,
                               .event_time_tol = opt_.event_time_tol,
                               .max_steps = opt_.max_steps,
                               .wall_time = wall_time_};
    const auto advance = [&](auto& dense) {
      return advance_to_event(
          dense, x, [this](const State& xs, Eigen::VectorXd& g) { probe(xs, g); },
          arm_thresholds(x), control, counters_, inspect,
          [&](double t_limit, bool inclusive) {
            impulse_.advance(t_limit, !active_.empty(), [&](double t, Eigen::VectorXd& lambda) {
              reaction(dense, t, lambda);
            });
            emit_grid(dense, t_limit, inclusive);
          },
          phase_buffers_);
    };
    // The phase's dense output: the state of a point y of the stepper.
    const auto to_state = [this](double t, const Eigen::VectorXd& y, State& xs) {
      unpack(t, y.data(), y.size(), n_, xs);
    };
    const double dt0 = initial_step(x, max_dt);
    const OdeState y0 = pack(x);
    const Eigen::Map<const Eigen::VectorXd> start(y0.data(), size);
    const auto run_with = [&](auto& stepper, auto& system) {
      stepper.initialize(start, x.t, dt0);
      auto dense = dense_phase(stepper, system, dense_state_, to_state);
      if (sliding_.empty()) return advance(dense);
      JamApproach guarded(
          dense, [this](double t, const Eigen::VectorXd& y) { return slip_consistent(t, y); },
          [this](double t, const Eigen::VectorXd& y, double dt) { jam_located(t, y, dt); });
      try {
        return advance(guarded);
      } catch (const JamReached&) {
        return PhaseEnd{.horizon = false, .x = *jam_, .crossed = {}};
      }
    };
    const auto rate_of = [&rate, size](double t, const double* y, double* dy) {
      rate(t, y, size, dy);
    };
    std::optional<PhaseEnd> end;
    switch (opt_.integrator) {
      case PhaseIntegrator::dop853: {
        auto rate_into = [&rate](double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
          rate(t, y.data(), y.size(), dy.data());
        };
        if (!dop853_ || stepper_size_ != size) {
          dop853_.emplace(Eigen::VectorXd::Constant(size, settings_.atol), settings_.rtol, max_dt);
          stepper_size_ = size;
        }
        end = run_with(*dop853_, rate_into);
        break;
      }
      case PhaseIntegrator::dopri5:
        // Odeint's dense-output dopri5, step for step (solvers/dopri5.hpp).
        if (!dopri5_) dopri5_.emplace(settings_.atol, settings_.rtol, max_dt);
        end = run_with(*dopri5_, rate_of);
        break;
      case PhaseIntegrator::odeint_dopri5:
        if (!odeint_dopri5_) odeint_dopri5_.emplace(settings_.atol, settings_.rtol, max_dt);
        end = run_with(*odeint_dopri5_, rate_of);
        break;
    }
    if (counters_.dips_unsearched > 0 && first_dip_function_.empty()) {
      first_dip_function_ = event_function_name(counters_.first_unsearched_function);
    }
    x = end->x;
    track_minimum(x);
    return *end;
  }

  // Keeps the first step inside the flight of a constraint that has just bounced off (ḟ > 0 at
  // f = 0), so the crossing back is bracketed after f has been seen positive.
  double initial_step(const State& x, double max_dt) {
    double dt = std::min(max_dt, 1e-3 * std::max(settings_.t_end - x.t, 1e-12));
    evaluate(x, point_);
    const ConstrainedAcceleration& acc = accelerate(point_, active_);
    const Eigen::VectorXd rate = point_.constraint_rate(x.v);
    const Eigen::VectorXd f_dd = point_.J * acc.qdd + point_.d;
    for (int k = 0; k < m_; ++k) {
      if (std::abs(point_.f(k)) <= opt_.distance_tol && rate(k) > opt_.velocity_tol &&
          f_dd(k) < 0.0) {
        dt = std::min(dt, 0.25 * rate(k) / -f_dd(k));
      }
    }
    return std::max(dt, 1e-14);
  }

  // One Newton step onto f_K = 0 and ḟ_K = 0 in the kinetic metric, removing the drift of the
  // previous phase (a correction at the level of the integration tolerance).
  void project_onto_constraints(State& x) {
    evaluate(x, point_);
    Delassus dq = delassus(point_, active_);
    Eigen::VectorXd f_active(static_cast<Eigen::Index>(active_.size()));
    for (std::size_t r = 0; r < active_.size(); ++r)
      f_active(static_cast<Eigen::Index>(r)) = point_.f(active_[r]);
    const Eigen::VectorXd dq_pos = -dq.Ainv_Jt * dq.W.ldlt().solve(f_active);
    x.q += dq_pos;
    evaluate(x, point_);
    dq = delassus(point_, active_);
    const Eigen::VectorXd rate = point_.constraint_rate(x.v);
    Eigen::VectorXd rate_active(static_cast<Eigen::Index>(active_.size()));
    for (std::size_t r = 0; r < active_.size(); ++r)
      rate_active(static_cast<Eigen::Index>(r)) = rate(active_[r]);
    // The velocity correction is the impulse −W⁻¹ḟ_K on the active constraints (a tangential
    // arrival below the velocity tolerance stops plastically): part of their impulse.
    const Eigen::VectorXd correction = -dq.W.ldlt().solve(rate_active);
    const Eigen::VectorXd dv = dq.Ainv_Jt * correction;
    for (std::size_t r = 0; r < active_.size(); ++r) {
      impulse_.add(active_[r], correction(static_cast<Eigen::Index>(r)));
    }
    x.v += dv;
    max_projection_ =
        std::max({max_projection_, dq_pos.lpNorm<Eigen::Infinity>(), dv.lpNorm<Eigen::Infinity>()});
  }

  // Newton's restitution of constraint k at an impact with Λ = |∇f|²_{A⁻¹}: the limit model's law,
  // or, for a constraint the model leaves ideal, its own.
  double restitution(int k, double Lambda) const {
    if (opt_.limit && !opt_.limit->realizes(k)) return opt_.limit->ideal_restitution;
    return opt_.impact_law.restitution(Lambda);
  }

  // The impact at x of the constraints `impacting` (the `approaching` ones, at rest or closing,
  // take part): the impulse, the new velocity, the impact events; `rate` becomes the constraint
  // rates after it.
  void apply_impact(State& x, const std::vector<int>& impacting,
                    const std::vector<int>& approaching, Eigen::VectorXd& rate) {
    emit(x, "impact-");
    // Newton's law on the normal velocities in the kinetic metric with the complementarity
    // 0 ≤ P ⊥ ḟ⁺ + e·min(ḟ⁻, 0) ≥ 0, ḟ⁺ = ḟ⁻ + W P, q̇⁺ = q̇⁻ + A⁻¹J_Cᵀ P. For one constraint
    // this is ḟ⁺ = −e ḟ⁻; Jw = 0 ⇒ wᵀA q̇ is kept (Appell, Kugushev & Sorokina 2002 (1.2)) and e =
    // 1 keeps the energy when ∂f/∂t = 0 (Kugushev & Sorokina 2002 (1.4)).
    // With one-sided kinematic rows, each of them is a row of the same complementarity,
    // 0 ≤ P_r ⊥ g_r⁺ ≥ 0 without restitution (the impulse has a component along every row
    // it needs; Berezinskaya, Sorokina & Kugushev 2003 §7), and only the two-sided rows
    // restrict the impulse directions.
    // A conditional row whose constraint strikes takes the roughness law
    // g⁺ = −e_t g⁻ (Berezinskaya, Sorokina & Kugushev 2003 §5): an equality row of the same
    // problem, eliminated by its Schur complement; e_t = −1 leaves it out (a smooth impact).
    for (const int r : coulomb_rows_) {
      const int k = model_.kinematic_condition(r);
      if (std::find(impacting.begin(), impacting.end(), k) == impacting.end()) continue;
      if (!opt_.frictional_process) {
        throw RunFailure{Status::unsupported_event,
                         "constraint " + std::to_string(k) +
                             " strikes at t = " + format_number(x.t) +
                             " with Coulomb friction on kinematic row " + std::to_string(r) +
                             ": Newton's law is not defined with friction (impact_law energetic "
                             "computes the impulse process of one such contact)"};
      }
      require_lone_contact(x, k, r, approaching, "strikes");
      frictional_impulse(x, k, r, rate);
      emit(x, "impact+");
      return;
    }
    const auto holonomic = static_cast<Eigen::Index>(approaching.size());
    Point impact_point;
    evaluate_all_rows(x, impact_point);
    const Eigen::VectorXd g_before = impact_point.g;
    std::vector<int> slipping;
    for (int r = ku_; r < kinematic_; ++r) {
      const int k = model_.kinematic_condition(r);
      if (k >= 0 && std::find(impacting.begin(), impacting.end(), k) != impacting.end() &&
          model_.slip_restitution(r) > -1.0) {
        slipping.push_back(r);
      }
    }
    const auto lcp_rows = holonomic + ku_;
    const auto eq_rows = static_cast<Eigen::Index>(slipping.size());
    Eigen::MatrixXd G(lcp_rows + eq_rows, n_);
    for (Eigen::Index r = 0; r < holonomic; ++r) {
      G.row(r) = point_.J.row(approaching[static_cast<std::size_t>(r)]);
    }
    G.middleRows(holonomic, ku_) = impact_point.a.topRows(ku_);
    for (Eigen::Index j = 0; j < eq_rows; ++j) {
      G.row(lcp_rows + j) = impact_point.a.row(slipping[static_cast<std::size_t>(j)]);
    }
    keep_kinematic_rows(impact_point, rows_through_impact(impacting));
    const Delassus D = delassus_of_rows(impact_point, G);
    // The restitution of each row from its own Λ = |∇f|²_{A⁻¹} in the metric of the impact
    // (the diagonal of W; the Kozlov wall's e depends on it, Newton's fixed e does not). Exact
    // for one impacting row; with several, each row's law is applied to its own Λ.
    Eigen::VectorXd b(lcp_rows + eq_rows);
    for (Eigen::Index r = 0; r < holonomic; ++r) {
      const double before = rate(approaching[static_cast<std::size_t>(r)]);
      b(r) = before + restitution(approaching[static_cast<std::size_t>(r)], D.W(r, r)) *
                          std::min(before, 0.0);
    }
    b.segment(holonomic, ku_) = g_before.head(ku_);
    for (Eigen::Index j = 0; j < eq_rows; ++j) {
      const int r = slipping[static_cast<std::size_t>(j)];
      b(lcp_rows + j) = (1.0 + model_.slip_restitution(r)) * g_before(r);
    }
    Eigen::MatrixXd M = D.W.topLeftCorner(lcp_rows, lcp_rows);
    Eigen::VectorXd b_lcp = b.head(lcp_rows);
    Eigen::PartialPivLU<Eigen::MatrixXd> eq_lu;
    if (eq_rows > 0) {
      eq_lu.compute(D.W.bottomRightCorner(eq_rows, eq_rows));
      const Eigen::MatrixXd coupling = D.W.topRightCorner(lcp_rows, eq_rows);
      M -= coupling * eq_lu.solve(D.W.bottomLeftCorner(eq_rows, lcp_rows));
      b_lcp -= coupling * eq_lu.solve(b.tail(eq_rows));
    }
    const auto lcp = solve_lcp(M, b_lcp);
    if (!lcp) {
      throw RunFailure{Status::lcp_failure,
                       "no impulse solves the impact complementarity at t = " + format_number(x.t) +
                           " for constraints " + join(approaching)};
    }
    Eigen::VectorXd P(lcp_rows + eq_rows);
    P.head(lcp_rows) = lcp->x;
    if (eq_rows > 0) {
      P.tail(eq_rows) = -eq_lu.solve(
          Eigen::VectorXd(b.tail(eq_rows) + D.W.bottomLeftCorner(eq_rows, lcp_rows) * lcp->x));
    }
    x.v += D.Ainv_Jt * P;
    last_impulse_ = Eigen::VectorXd::Zero(m_);
    for (std::size_t r = 0; r < approaching.size(); ++r) {
      last_impulse_(approaching[r]) = lcp->x(static_cast<Eigen::Index>(r));
      impulse_.add(approaching[r], lcp->x(static_cast<Eigen::Index>(r)));
    }
    record_impacts(x, impacting, rate);
    emit(x, "impact+");
    last_impulse_.setZero();
  }

  // The impact events of `impacting` at x after the velocity jump, with their rates before
  // (`rate`) and after (from point_, evaluated at x's configuration); `rate` becomes the rates
  // after.
  void record_impacts(const State& x, const std::vector<int>& impacting, Eigen::VectorXd& rate) {
    const Eigen::VectorXd rate_after = point_.constraint_rate(x.v);
    for (const int k : impacting) {
      rec_.events.push_back({.t = x.t,
                             .kind = EventKind::impact,
                             .index = k,
                             .rate_before = rate(k),
                             .rate_after = rate_after(k)});
      register_impact(x.t);
    }
    rate = rate_after;
  }

  // Impacts, then activation of the constraints at rest on Σ; whether there was an impact.
  bool resolve_contacts(State& x, const std::vector<int>& leaving) {
    evaluate(x, point_);
    std::vector<int> near;
    for (int k = 0; k < m_; ++k) {
      if (is_bilateral(k)) continue;
      const bool is_active = std::find(active_.begin(), active_.end(), k) != active_.end();
      if (is_active || std::abs(point_.f(k)) <= opt_.distance_tol) near.push_back(k);
    }
    Eigen::VectorXd rate = point_.constraint_rate(x.v);

    std::vector<int> impacting;
    std::vector<int> approaching;
    for (const int k : near) {
      if (rate(k) < -opt_.velocity_tol) impacting.push_back(k);
      if (rate(k) <= opt_.velocity_tol) approaching.push_back(k);
    }
    if (!impacting.empty()) apply_impact(x, impacting, approaching, rate);
    const bool impact = !impacting.empty();

    // In the limit model a contact is kept whatever the sign of λ until z says otherwise
    // (Deryabin & Kozlov 1995 Theorem 1); only constraints not in contact go through the
    // complementarity.
    std::vector<int> next_active;
    for (int k = m_ - bilateral_; k < m_; ++k) next_active.push_back(k);
    if (dynamic_z()) {
      for (const int k : active_) {
        if (!is_bilateral(k) && z_carries(k) &&
            std::find(leaving.begin(), leaving.end(), k) == leaving.end()) {
          next_active.push_back(k);
        }
      }
    }
    std::vector<int> resting;
    for (const int k : near) {
      if (std::abs(rate(k)) <= opt_.velocity_tol &&
          std::find(leaving.begin(), leaving.end(), k) == leaving.end() &&
          std::find(next_active.begin(), next_active.end(), k) == next_active.end()) {
        resting.push_back(k);
      }
    }
    if (!resting.empty()) {
      // 0 ≤ λ ⊥ f̈ = W λ + (J A⁻¹F + d) ≥ 0 on the constraints at rest.
      evaluate(x, point_);
      const ConstrainedAcceleration& free_motion = accelerate(point_, {});
      const Delassus D = delassus(point_, resting);
      Eigen::VectorXd b(static_cast<Eigen::Index>(resting.size()));
      double terms = 0.0;
      for (std::size_t r = 0; r < resting.size(); ++r) {
        const int k = resting[r];
        b(static_cast<Eigen::Index>(r)) = point_.J.row(k).dot(free_motion.qdd) + point_.d(k);
        terms = std::max(terms, point_.J.row(k).cwiseAbs().dot(free_motion.qdd.cwiseAbs()) +
                                    std::abs(point_.d(k)));
      }
      const auto lcp = solve_lcp(D.W, b, 1e-12, terms);
      if (!lcp) {
        throw RunFailure{Status::lcp_failure,
                         "no multipliers solve the contact complementarity at t = " +
                             format_number(x.t) + " for constraints " + join(resting)};
      }
      for (std::size_t r = 0; r < resting.size(); ++r) {
        if (lcp->x(static_cast<Eigen::Index>(r)) > 0.0) next_active.push_back(resting[r]);
      }
    }
    for (const int k : active_) {
      if (std::find(next_active.begin(), next_active.end(), k) == next_active.end()) {
        record_lift_off(x.t, k);
      }
    }
    std::sort(next_active.begin(), next_active.end());
    for (const int k : next_active) {
      if (std::find(active_.begin(), active_.end(), k) == active_.end()) {
        rec_.events.push_back({.t = x.t, .kind = EventKind::contact, .index = k});
        if (z_) z_->start_contact(k, x);
      }
    }
    active_ = next_active;
    sync_conditional_rows();
    return impact;
  }

  // The impulse process needs the contact alone: no other constraint held or striking, no other
  // row in force (its W is 2 × 2).
  void require_lone_contact(const State& x, int k, int r, const std::vector<int>& approaching,
                            const char* what) const {
    const bool alone = approaching == std::vector<int>{k} && rows_through_impact({k}).empty() &&
                       std::all_of(active_.begin(), active_.end(), [k](int j) { return j == k; });
    if (alone) return;
    throw RunFailure{Status::unsupported_event,
                     "constraint " + std::to_string(k) + " " + what +
                         " at t = " + format_number(x.t) +
                         " with Coulomb friction on kinematic row " + std::to_string(r) +
                         " beside other constraints or rows in force: the impulse process is "
                         "computed for one contact alone"};
  }

  // The Delassus matrix W of contact k's normal and its Coulomb row r at x with no other row in
  // force (W = [J_k; a_r] A⁻¹ [J_k; a_r]ᵀ, and A⁻¹[J_k; a_r]ᵀ), and the slip g_r.
  std::pair<Delassus, double> contact_and_slip(const State& x, int k, int r) const {
    Point p;
    evaluate_all_rows(x, p);
    Eigen::MatrixXd G(2, n_);
    G.row(0) = p.J.row(k);
    G.row(1) = p.a.row(r);
    const double slip = p.g(r);
    keep_kinematic_rows(p, {});
    return {delassus_of_rows(p, G), slip};
  }

  // The impulse process of contact k with its Coulomb row r at x (Darboux–Keller at the fixed
  // configuration, Stronge's energetic restitution: solvers/impulse_process.hpp), from the normal
  // rate `rate`(k) (< 0: an impact; 0: an impact without collision) and the slip g_r: the new
  // velocity, the impact event with its rates, the impulse. `rate` becomes the rates after.
  // Nothing is emitted: the contact problem is decided after it.
  void frictional_impulse(State& x, int k, int r, Eigen::VectorXd& rate) {
    const auto [D, slip] = contact_and_slip(x, k, r);
    ImpulseProcessStart start{.W = D.W,
                              .vn = std::min(rate(k), 0.0),
                              .vt = std::abs(slip) > opt_.velocity_tol ? slip : 0.0,
                              .mu = model_.friction_coefficient(r),
                              .restitution = restitution(k, D.W(0, 0))};
    const ImpulseProcessResult out = frictional_impulse_process(start);
    if (out.end != ImpulseProcessEnd::ended) {
      throw RunFailure{Status::painleve_paradox,
                       "the impulse process of constraint " + std::to_string(k) +
                           " at t = " + format_number(x.t) + " " + out.why};
    }
    x.v += D.Ainv_Jt * Eigen::Vector2d(out.Pn, out.Pt);
    impulse_.add(k, out.Pn);
    record_impacts(x, {k}, rate);
  }

  // Painlevé's inconsistent slip (no reaction solves the contact problem of a sliding contact)
  // with impact_law energetic: the impact without collision, the impulse process from the normal
  // rate 0, and the contacts, rows and modes decided again after it; whether it happened. The
  // paradox stays a failure with the other laws, and with several contacts.
  bool resolve_inconsistent_slip(State& x) {
    if (!opt_.frictional_process || sliding_.empty()) return false;
    evaluate(x, point_);
    try {
      solve_constrained(point_, false, acceleration_);
      return false;
    } catch (const RunFailure& failure) {
      if (failure.status != Status::painleve_paradox || sliding_.size() != 1) throw;
    }
    const int r = sliding_.front();
    const int k = model_.kinematic_condition(r);
    require_lone_contact(x, k, r, {k}, "slips inconsistently");
    Eigen::VectorXd rate = point_.constraint_rate(x.v);
    rate(k) = 0.0;  // in contact, |f'| within the velocity tolerance
    // No sample before it: the state has no reaction to report (the caller samples after).
    frictional_impulse(x, k, r, rate);
    const bool impact = resolve_contacts(x, {});
    resolve_kinematic(x, resting_kinematic_rows(x), impact);
    resolve_friction(x, {});
    return true;
  }

  // The dynamic jam with impact_law energetic: the limit p → 0⁻ of the impact without collision
  // (docs/theory.md §2). Along the slip's segment of the impulse process v_n moves at p = 0 and
  // the compression stores nothing (E₁ = −p P₁²/2 = 0), so the slip stops under P_n = −u/q,
  // q = W_tn − μ s W_tt, P_t = −μ s P_n, with v_n unchanged, whatever e*; then the contacts, rows
  // and modes are decided again (at Glocker's example: a lift-off).
  void resolve_jam(State& x) {
    const int r = sliding_.front();
    const int k = model_.kinematic_condition(r);
    rec_.events.push_back({.t = x.t, .kind = EventKind::dynamic_jam, .index = r});
    jam_.reset();
    require_lone_contact(x, k, r, {k}, "jams");
    evaluate(x, point_);
    Eigen::VectorXd rate = point_.constraint_rate(x.v);
    const auto [D, slip] = contact_and_slip(x, k, r);
    const double mu = model_.friction_coefficient(r), s = slip > 0.0 ? 1.0 : -1.0;
    const double q = D.W(1, 0) - mu * s * D.W(1, 1);
    if (!(s * q < 0.0)) {
      throw RunFailure{Status::dynamic_jam,
                       "the slip of row " + std::to_string(r) +
                           " jams at t = " + format_number(x.t) +
                           " and the impulse does not stop it (q = " + format_number(q) +
                           "): the ideal model is not continued past it"};
    }
    const double Pn = -slip / q;
    x.v += D.Ainv_Jt * Eigen::Vector2d(Pn, -mu * s * Pn);
    impulse_.add(k, Pn);
    record_impacts(x, {k}, rate);
    const bool impact = resolve_contacts(x, {});
    resolve_kinematic(x, resting_kinematic_rows(x), impact);
    resolve_friction(x, {});
  }

  // The kinematic rows that an impact's impulse keeps as they are: the two-sided rows in force,
  // except the conditional rows of the striking constraints (they take the roughness law).
  std::vector<int> rows_through_impact(const std::vector<int>& impacting) const {
    std::vector<int> rows;
    for (const int r : kinematic_rows_) {
      const int k = model_.kinematic_condition(r);
      if (r < ku_) continue;
      if (k >= 0 && std::find(impacting.begin(), impacting.end(), k) != impacting.end()) continue;
      rows.push_back(r);
    }
    return rows;
  }

  // A conditional row holds exactly while its constraint is active, and a Coulomb row only while
  // it sticks (resolve_friction).
  void sync_conditional_rows() {
    for (int r = ku_; r < kinematic_; ++r) {
      const int k = model_.kinematic_condition(r);
      if (k < 0) continue;
      auto& slip = slip_[static_cast<std::size_t>(r)];
      if (!is_active(k)) slip = 0;
      const bool holds = is_active(k) && slip == 0;
      const auto at = std::lower_bound(kinematic_rows_.begin(), kinematic_rows_.end(), r);
      const bool present = at != kinematic_rows_.end() && *at == r;
      if (holds && !present) kinematic_rows_.insert(at, r);
      if (!holds && present) kinematic_rows_.erase(at);
    }
    sliding_.clear();
    for (const int r : coulomb_rows_) {
      if (slip_[static_cast<std::size_t>(r)] != 0) sliding_.push_back(r);
    }
  }

  // The constrained solution at p (from evaluate(): the rows in force, the sliding rows' a in
  // sliding_a_), with q̈ or the multipliers alone, and the Coulomb forces of the sliding rows; a
  // failure ends the run.
  void solve_constrained(const Point& p, bool with_qdd, ConstrainedAcceleration& out) {
    if (with_qdd) {
      constrained_acceleration(p, active_, workspace_, out);
    } else {
      constrained_multipliers(p, active_, workspace_, out);
    }
    if (!out.ok) throw RunFailure{out.status, out.reason};
    add_friction(p, with_qdd, out);
  }

  // The force −μ s λ_k aᵀ of each sliding row r (slip sign s, its constraint k; docs/theory.md
  // §2, "Coulomb friction") added to a solution `out` without them. The solution is affine in the
  // force: R_j, its change under row j's force at λ_k = 1, gives the sliding contacts' λ from
  // (I − R) λ_K = out_K, and everything else follows. Where I − R is not a P-matrix (a principal
  // minor ≤ 0) the frictional contact problem has no solution or several (Painlevé's paradox):
  // the run ends with painleve_paradox rather than choose one. The buffers are members: this runs
  // at every right-hand side while a row slides.
  void add_friction(const Point& p, bool with_qdd, ConstrainedAcceleration& out) {
    if (sliding_.empty()) return;
    FrictionWork& w = friction_work_;
    friction_response(p, with_qdd, out);
    if (!p_matrix(w.I_R)) {
      throw RunFailure{Status::painleve_paradox,
                       "the contact problem with Coulomb friction of the sliding rows " +
                           join(sliding_) +
                           " has no solution or several (I - R not a P-matrix, "
                           "R the reactions' response to their friction)"};
    }
    const auto count = static_cast<Eigen::Index>(sliding_.size());
    w.lu.compute(w.I_R);
    w.lambda_K = w.lu.solve(w.base);
    for (Eigen::Index j = 0; j < count; ++j) {
      const ConstrainedAcceleration& c = w.change[static_cast<std::size_t>(j)];
      out.lambda += w.lambda_K(j) * c.lambda;
      out.mu += w.lambda_K(j) * c.mu;
      out.kinematic_lambda += w.lambda_K(j) * c.kinematic_lambda;
      if (with_qdd) out.qdd += w.lambda_K(j) * c.qdd;
    }
  }

  // add_friction's response (into friction_work_): per sliding row j the change of the solution
  // `out` under its force at λ_k = 1, R and I − R, and the sliding contacts' λ without friction.
  void friction_response(const Point& p, bool with_qdd, const ConstrainedAcceleration& out) {
    const auto count = static_cast<Eigen::Index>(sliding_.size());
    FrictionWork& w = friction_work_;
    w.at.resize(sliding_.size());
    for (std::size_t j = 0; j < sliding_.size(); ++j) {
      const int k = model_.kinematic_condition(sliding_[j]);
      w.at[j] = std::find(active_.begin(), active_.end(), k) - active_.begin();
    }
    w.change.resize(sliding_.size());
    w.R.resize(count, count);
    w.pushed = p;
    for (Eigen::Index j = 0; j < count; ++j) {
      const int r = sliding_[static_cast<std::size_t>(j)];
      w.pushed.Q = p.Q - model_.friction_coefficient(r) * slip_[static_cast<std::size_t>(r)] *
                             sliding_a_.row(j).transpose();
      ConstrainedAcceleration& c = w.change[static_cast<std::size_t>(j)];
      if (with_qdd) {
        constrained_acceleration(w.pushed, active_, workspace_, c);
      } else {
        constrained_multipliers(w.pushed, active_, workspace_, c);
      }
      if (!c.ok) throw RunFailure{c.status, c.reason};
      c.lambda -= out.lambda;
      c.mu -= out.mu;
      c.kinematic_lambda -= out.kinematic_lambda;
      if (with_qdd) c.qdd -= out.qdd;
      for (Eigen::Index i = 0; i < count; ++i)
        w.R(i, j) = c.lambda(w.at[static_cast<std::size_t>(i)]);
    }
    w.I_R = -w.R;
    w.I_R.diagonal().array() += 1.0;
    w.base.resize(count);
    for (Eigen::Index i = 0; i < count; ++i)
      w.base(i) = out.lambda(w.at[static_cast<std::size_t>(i)]);
  }

  // Whether the sliding contacts' problem has one solution at the phase's point y (time t): I − R
  // a P-matrix there.
  bool slip_consistent(double t, const Eigen::VectorXd& y) {
    unpack(t, y.data(), y.size(), n_, jam_state_);
    evaluate(jam_state_, jam_point_);
    constrained_multipliers(jam_point_, active_, workspace_, jam_acceleration_);
    if (!jam_acceleration_.ok) return false;
    friction_response(jam_point_, false, jam_acceleration_);
    return p_matrix(friction_work_.I_R);
  }

  // JamApproach's end: once the failing step dt from the accepted point y (time t) is within the
  // event tolerance, the dynamic jam at t, the run ending there with status dynamic_jam.
  void jam_located(double t, const Eigen::VectorXd& y, double dt) {
    if (dt > std::max(opt_.event_time_tol,
                      16.0 * std::numeric_limits<double>::epsilon() * std::abs(t))) {
      return;
    }
    unpack(t, y.data(), y.size(), n_, jam_state_);
    jam_ = jam_state_;
    if (opt_.frictional_process && sliding_.size() == 1) throw JamReached{};
    rec_.events.push_back({.t = t,
                           .kind = EventKind::dynamic_jam,
                           .index = sliding_.size() == 1 ? sliding_.front() : -1});
    throw RunFailure{Status::dynamic_jam,
                     "the slip of the rows " + join(sliding_) +
                         " reaches at t = " + format_number(t) + " (to " + format_number(dt) +
                         ") a configuration where its contact problem has no solution (I - R "
                         "loses the P-property: Painleve's p = 0 along the slip, the dynamic jam "
                         "of Genot & Brogliato 1999, where the reaction grows without bound): "
                         "the ideal model is not continued past it"};
  }

  // Every principal minor of M positive (M small: the sliding rows; the minors live on the
  // stack).
  static bool p_matrix(const Eigen::MatrixXd& M) {
    constexpr int kMax = 16;
    const auto size = static_cast<int>(M.rows());
    if (size > kMax) return false;
    std::array<Eigen::Index, kMax> rows{};
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMax, kMax> minor;
    for (unsigned subset = 1; subset < (1u << size); ++subset) {
      int used = 0;
      for (int i = 0; i < size; ++i) {
        if (subset & (1u << i)) rows[static_cast<std::size_t>(used++)] = i;
      }
      minor.resize(used, used);
      for (int a = 0; a < used; ++a) {
        for (int b = 0; b < used; ++b) {
          minor(a, b) = M(rows[static_cast<std::size_t>(a)], rows[static_cast<std::size_t>(b)]);
        }
      }
      if (!(minor.determinant() > 1e-12)) return false;
    }
    return true;
  }

  // The friction events of a probe: per Coulomb row whose constraint is in contact, the cone's
  // margin μ λ_k − |ν_r| while it sticks (0 where the cone is reached), its slip s g_r while it
  // slides (0 where it stops).
  void probe_friction(const Eigen::VectorXd& all_g, const ConstrainedAcceleration& acc,
                      Eigen::VectorXd& g) const {
    for (const int r : coulomb_rows_) {
      const int k = model_.kinematic_condition(r);
      const auto it = std::find(active_.begin(), active_.end(), k);
      if (it == active_.end()) continue;
      const int slip = slip_[static_cast<std::size_t>(r)];
      if (slip != 0) {
        g(events_.friction(r)) = slip * all_g(r);
        continue;
      }
      const auto row = std::find(kinematic_rows_.begin(), kinematic_rows_.end(), r);
      const double nu = acc.kinematic_lambda(row - kinematic_rows_.begin());
      g(events_.friction(r)) =
          model_.friction_coefficient(r) * acc.lambda(it - active_.begin()) - std::abs(nu);
    }
  }

  // The Coulomb rows' modes after an event: for a row whose constraint has just closed, whose
  // cone has been reached (`crossed`, sticking) or whose slip has reached 0 (`crossed`, sliding),
  // a slip |g| > contact_velocity_tol slides against g; otherwise it sticks if its reaction then
  // lies in the cone, |ν| ≤ μ λ, and else slides against ν. Rows are decided one after another.
  void resolve_friction(const State& x, const std::vector<int>& crossed) {
    for (const int r : coulomb_rows_) {
      const auto i = static_cast<std::size_t>(r);
      const int k = model_.kinematic_condition(r);
      const bool touching = is_active(k);
      const bool was_touching = coulomb_touching_[i] != 0;
      coulomb_touching_[i] = touching ? 1 : 0;
      if (!touching) continue;
      if (was_touching && std::find(crossed.begin(), crossed.end(), r) == crossed.end()) continue;
      const int before = was_touching ? slip_[i] : 0;
      // A sticking row whose cone has been reached slides: at the event |ν| = μ λ, and the
      // margin falls through 0 (sticking would hold only at that instant).
      const int after =
          was_touching && before == 0 ? slide_against_reaction(x, r) : friction_mode(x, r);
      if (after == before && was_touching) continue;
      const EventKind kind = after == 0         ? EventKind::kinematic_contact
                             : before == -after ? EventKind::slip_reversal
                                                : EventKind::kinematic_release;
      if (was_touching || after != 0) rec_.events.push_back({.t = x.t, .kind = kind, .index = r});
    }
  }

  // Row r (sticking) set sliding against its reaction ν at x; the sign returned.
  int slide_against_reaction(const State& x, int r) {
    return set_slip(r, stick_reaction(x, r).nu > 0.0 ? -1 : 1);
  }

  // Row r's mode at x (its constraint in contact), set and returned: 0 sticking, ±1 sliding
  // with that sign of g.
  int friction_mode(const State& x, int r) {
    Point full;
    evaluate_all_rows(x, full);
    if (std::abs(full.g(r)) > opt_.velocity_tol) return set_slip(r, full.g(r) > 0.0 ? 1 : -1);
    set_slip(r, 0);
    const StickReaction s = stick_reaction(x, r);
    if (std::abs(s.nu) <= model_.friction_coefficient(r) * s.lambda) return 0;
    return set_slip(r, s.nu > 0.0 ? -1 : 1);
  }

  // The reaction λ_k of row r's constraint and the row's multiplier ν_r at x with the rows'
  // present modes (row r sticking).
  struct StickReaction {
    double lambda, nu;
  };
  StickReaction stick_reaction(const State& x, int r) {
    evaluate(x, point_);
    ConstrainedAcceleration& acc = acceleration_;
    solve_constrained(point_, false, acc);
    const int k = model_.kinematic_condition(r);
    return {
        .lambda = acc.lambda(std::find(active_.begin(), active_.end(), k) - active_.begin()),
        .nu = acc.kinematic_lambda(std::find(kinematic_rows_.begin(), kinematic_rows_.end(), r) -
                                   kinematic_rows_.begin())};
  }

  int set_slip(int r, int slip) {
    slip_[static_cast<std::size_t>(r)] = slip;
    sync_conditional_rows();
    return slip;
  }

  void record_lift_off(double t, int k) {
    rec_.events.push_back({.t = t, .kind = EventKind::lift_off, .index = k});
  }

  void register_impact(double t) {
    ++impacts_;
    recent_impacts_.push_back(t);
    while (!recent_impacts_.empty() && recent_impacts_.front() < t - opt_.accumulation_window) {
      recent_impacts_.pop_front();
    }
    if (static_cast<double>(recent_impacts_.size()) > opt_.accumulation_count) {
      std::ostringstream why;
      why << recent_impacts_.size() << " impacts within " << format_number(opt_.accumulation_window)
          << " time units before t = " << format_number(t)
          << " (an accumulation of impacts; raise contact_velocity_tol to end it plastically)";
      throw RunFailure{Status::impact_accumulation, why.str()};
    }
  }

  void track_minimum(const State& x) {
    model_.constraint_values(x.t, x.q, track_f_);
    track_minimum(x, track_f_);
  }
  // The same with f(x) given.
  void track_minimum(const State& x, const Eigen::VectorXd& f) {
    update_minimum(f);
    if (bilateral_ > 0) {
      // The bilateral constraints hold at the acceleration level between phase starts (where
      // project_onto_constraints puts f and ḟ back to 0); their drift is reported.
      evaluate(x, drift_point_);
      const Eigen::VectorXd rate = drift_point_.constraint_rate(x.v);
      for (int k = m_ - bilateral_; k < m_; ++k) {
        bilateral_drift_ = std::max(bilateral_drift_, std::abs(drift_point_.f(k)));
        bilateral_rate_drift_ = std::max(bilateral_rate_drift_, std::abs(rate(k)));
      }
    }
    if (kinematic_ > 0) {
      // The kinematic constraints hold at the acceleration level only; their drift |a q̇ + b| is
      // reported, not corrected.
      evaluate(x, drift_point_);
      kinematic_drift_ = std::max(kinematic_drift_, drift_point_.g.lpNorm<Eigen::Infinity>());
    }
  }
  void update_minimum(const Eigen::VectorXd& f) {
    for (int k = 0; k < m_; ++k) {
      auto& slot = rec_.min_constraint[static_cast<std::size_t>(k)];
      slot = std::min(slot, f(k));
    }
  }

  TrajectorySample sample(const State& x, std::string label) {
    TrajectorySample s;
    s.x = x;
    s.label = std::move(label);
    evaluate(x, point_);
    s.f = point_.f;
    s.lambda = Eigen::VectorXd::Zero(m_);
    s.mu = Eigen::VectorXd::Zero(m_);
    s.impulse = last_impulse_.size() == m_ ? last_impulse_ : Eigen::VectorXd::Zero(m_);
    if (z_) s.extra = z_->z_values(x);
    if (!active_.empty()) {
      ConstrainedAcceleration acc = constrained_acceleration(point_, active_);
      if (acc.ok) add_friction(point_, true, acc);
      if (acc.ok) {
        for (std::size_t r = 0; r < active_.size(); ++r) {
          s.lambda(active_[r]) = acc.lambda(static_cast<Eigen::Index>(r));
          s.mu(active_[r]) = acc.mu(static_cast<Eigen::Index>(r));
        }
      }
    }
    return s;
  }

  void emit(const State& x, const std::string& label) {
    if (output_.wanted()) output_.deliver(sample(x, label));
  }

 public:
  double output_seconds() const { return output_.seconds(); }

 private:
  template <class Dense>
  void emit_grid(const Dense& dense, double t_limit, bool inclusive) {
    output_.grid(dense, t_limit, inclusive, [this](const State& x) { return sample(x, ""); });
  }

  const Model& model_;
  const RunSettings& settings_;
  const WallTimeBudget wall_time_{std::chrono::steady_clock::now(), settings_.max_wall_time,
                                  settings_.on_progress};
  const Options& opt_;
  RunRecord& rec_;
  const int n_;
  const int m_;
  const int ku_;  // one-sided kinematic rows (the first ku_ kinematic rows)
  // The model's counts, kept: the hot loops ask for them at every sample.
  const int bilateral_;
  const int kinematic_;
  const int switches_;
  const EventLayout events_;
  // The kinematic rows in force, sorted: the two-sided ones always, the one-sided ones while
  // active.
  std::vector<int> kinematic_rows_;
  bool select_rows_ = false;  // some kinematic rows are one-sided or conditional
  // Coulomb friction (CaseInfo::coulomb_rows): the rows, each row's slip sign while it slides
  // (0: sticking, or its constraint out of contact), whether its constraint was in contact at
  // the last resolve_friction, the sliding rows and their a at the last evaluate().
  std::vector<int> coulomb_rows_;
  std::vector<int> slip_;
  std::vector<char> coulomb_touching_ = std::vector<char>(static_cast<std::size_t>(kinematic_), 0);
  std::vector<int> sliding_;
  Eigen::MatrixXd sliding_a_;
  // add_friction's buffers.
  struct FrictionWork {
    std::vector<Eigen::Index> at;
    std::vector<ConstrainedAcceleration> change;
    Point pushed;
    Eigen::MatrixXd R, I_R;
    Eigen::VectorXd base, lambda_K;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  };
  FrictionWork friction_work_;
  // The dynamic jam: the state where the slip's contact problem loses its solution, and the
  // buffers of its test.
  std::optional<State> jam_;
  State jam_state_;
  Point jam_point_;
  ConstrainedAcceleration jam_acceleration_;
  std::vector<int> modes_;
  std::vector<int> active_;
  Point point_;
  Point rhs_point_;
  // The hot loop's buffers (right-hand side, event functions, minima), sized at the first step.
  State rhs_state_;
  AccelerationWorkspace workspace_;
  ConstrainedAcceleration rhs_acceleration_, probe_acceleration_, acceleration_;
  // ∫λ dt over the smooth phases plus the impact impulses, per constraint.
  ImpulseQuadrature impulse_;
  State impulse_state_;
  Point impulse_point_;
  ConstrainedAcceleration impulse_acceleration_;
  // The smooth phases' stepper and buffers, kept from phase to phase: a phase initializes them
  // again in the storage of the last (the tolerances and the step bound are the run's).
  std::optional<Dop853Dense> dop853_;
  std::optional<Dopri5Dense> dopri5_;
  std::optional<OdeintDopri5> odeint_dopri5_;
  Eigen::Index stepper_size_ = 0;
  Eigen::VectorXd dense_state_;
  PhaseBuffers phase_buffers_;
  Eigen::VectorXd lambda_active_, probe_switching_, probe_f_, track_f_, probe_kinematic_g_;
  double probed_t_ = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd probed_q_;
  SampleOutput output_{settings_, model_.initial_state().t};
  std::deque<double> recent_impacts_;
  long rhs_evaluations_ = 0;
  long probe_evaluations_ = 0;
  long impacts_ = 0;
  double max_projection_ = 0.0;
  Point drift_point_;
  double kinematic_drift_ = 0.0;
  double bilateral_drift_ = 0.0;
  double bilateral_rate_drift_ = 0.0;
  PhaseCounters counters_;
  std::string first_dip_function_;  // the first dip that could not be searched
  // Limit model bookkeeping, per constraint: start of the contact, most negative z, first zero
  // of λ in the contact; and the theorem's verdict.
  // The limit model's z along contacts (solvers/limit_z.hpp); empty for the classical model.
  std::optional<LimitZ> z_;
  double last_mu_ = 0.0;
  Eigen::VectorXd last_impulse_;  // the impulse of the impact being reported (impact+ rows)
};

}  // namespace
}  // namespace event_driven_detail

std::string EventDrivenSolver::description() const {
  return "Ideal classical model, event-driven: smooth phases by Odeint's dopri5 (or DOP853) with "
         "dense output, "
         "events (contact, lift-off where lambda reaches 0, force switches) located by TOMS 748, "
         "Newton impacts in the kinetic metric, contact activation by complementarity.";
}

std::vector<ParamSpec> EventDrivenSolver::parameters() const {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<ParamSpec> params = impact_law_params();
  const std::vector<ParamSpec> own{
      kContactDistanceTolSpec,
      kContactVelocityTolSpec,
      kEventTimeToleranceSpec,
      {.name = "accumulation_count",
       .default_value = 1000,
       .min = 1,
       .max = 1e9,
       .description =
           "impacts within accumulation_window that end the run (status impact_accumulation)",
       .whole = true},
      {.name = "accumulation_window",
       .default_value = 1e-6,
       .min = 0.0,
       .max = inf,
       .min_inclusive = false,
       .max_inclusive = false,
       .description = "see accumulation_count"},
      kMaxStepsSpec,
      kMaxEventsSpec,
      kMaxStepFractionSpec,
  };
  params.insert(params.end(), own.begin(), own.end());
  return params;
}

ChoiceSpec phase_integrator_choice(std::vector<std::string> options,
                                   const std::string& default_value, const std::string& why) {
  return {.name = "integrator",
          .options = std::move(options),
          .default_value = default_value,
          .description =
              "the smooth phases' method: dop853 (Dormand & Prince order 8, dense "
              "output of order 7), dopri5 (Dormand & Prince order 5, dense output of order 4, "
              "as Odeint computes it) or odeint-dopri5 (Boost.Odeint's own, which dopri5 "
              "reproduces bit for bit); " +
              why};
}

std::vector<ChoiceSpec> EventDrivenSolver::choices() const {
  // The step bound (max_step_fraction) rather than the tolerance sets most steps of the classical
  // motion of the cases here: dopri5's 6 right-hand sides a step beat DOP853's 15 (dk-plane: 55
  // steps either way, 332 against 827 right-hand sides).
  return {impact_law_choice(true),
          phase_integrator_choice({"dopri5", "dop853", "odeint-dopri5"}, "dopri5",
                                  "dopri5 by default: most classical phases take as many steps "
                                  "with either (the step bound max_step_fraction), and dopri5's "
                                  "cost less")};
}

void EventDrivenSolver::finalize(ParamValues& params, ChoiceValues& choices,
                                 const std::vector<std::string>& assigned) const {
  apply_impact_law(params, choices, assigned, "solver " + name());
}

std::optional<std::string> bilateral_start_refusal(const Model& model, double distance_tol,
                                                   double velocity_tol) {
  if (model.bilateral_count() == 0) return std::nullopt;
  const State x = model.initial_state();
  Point p;
  model.evaluate(x, model.modes_at(x), p);
  const Eigen::VectorXd rate = p.constraint_rate(x.v);
  for (int k = model.constraint_count() - model.bilateral_count(); k < model.constraint_count();
       ++k) {
    if (std::abs(p.f(k)) > distance_tol || std::abs(rate(k)) > velocity_tol) {
      return "initial data: bilateral constraint " + std::to_string(k) +
             " has f = " + format_number(p.f(k)) + ", f' = " + format_number(rate(k)) +
             "; the holonomic motion needs f(q0) = 0 and grad f . q0' = 0 (Kozlov 1992 condition "
             "(10), within contact_distance_tol and contact_velocity_tol); the realization and "
             "limit solvers take such data";
    }
  }
  return std::nullopt;
}

namespace {

// `auto` (the limit solver's default): DOP853 where the limit model's z-equation oscillates
// (α > 0: its period sets the step along a contact), dopri5 elsewhere.
PhaseIntegrator phase_integrator(const RunSettings& settings,
                                 const std::optional<LimitCoefficients>& limit) {
  const auto it = settings.solver_choices.find("integrator");
  if (it == settings.solver_choices.end()) return PhaseIntegrator::dopri5;
  if (it->second == "auto") {
    return limit && limit->alpha > 0.0 ? PhaseIntegrator::dop853 : PhaseIntegrator::dopri5;
  }
  if (it->second == "dop853") return PhaseIntegrator::dop853;
  if (it->second == "odeint-dopri5") return PhaseIntegrator::odeint_dopri5;
  return PhaseIntegrator::dopri5;
}

}  // namespace

RunRecord run_contact_dynamics(const Model& model, const RunSettings& settings,
                               const std::string& solver_name,
                               const std::optional<LimitCoefficients>& limit,
                               const HolonomicExtras& extras) {
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;
  const event_driven_detail::Options options{
      .impact_law = ImpactLaw::from(p, settings.solver_choices.count("interaction") &&
                                           settings.solver_choices.at("interaction") == "obstacle"),
      .frictional_process = settings.solver_choices.count("impact_law") &&
                            settings.solver_choices.at("impact_law") == "energetic",
      .distance_tol = p.at("contact_distance_tol"),
      .velocity_tol = p.at("contact_velocity_tol"),
      .event_time_tol = p.at("event_time_tol"),
      .accumulation_count = p.at("accumulation_count"),
      .accumulation_window = p.at("accumulation_window"),
      .max_steps = p.at("max_steps"),
      .max_events = p.at("max_events"),
      .max_step_fraction = p.at("max_step_fraction"),
      .integrator = phase_integrator(settings, limit),
      .limit = limit,
      .extras = extras,
  };
  RunRecord record = start_record(model, solver_name, settings);
  record.tolerances = {{"rtol", settings.rtol},
                       {"atol", settings.atol},
                       {"event_time_tol", options.event_time_tol},
                       {"contact_distance_tol", options.distance_tol},
                       {"contact_velocity_tol", options.velocity_tol}};
  record.episode_definition =
      limit
          ? "from a contact (or an impact) to the lift_off event of the (alpha,beta,gamma) limit "
            "model: the first simple zero of z (alpha z'' + beta z' + gamma z = -lambda, z = z' = "
            "0 at the start of the contact) where lambda < 0 (Deryabin & Kozlov 1995, Theorem 1); "
            "an impact alone is an episode of zero duration"
          : "from a contact (or an impact) to the lift_off event, where the multiplier lambda "
            "reaches 0 from above or the contact complementarity after an event (e.g. a force "
            "switch) gives lambda = 0 and f'' > 0; an impact alone is an episode of zero duration";
  event_driven_detail::Run run(model, settings, options, record);
  run.execute();
  finish_record(record, model, started, run.output_seconds());
  // Where the limit model's rules decide nothing (a double zero of z, λ = 0 at a zero), no
  // lift-off is predicted: the record says why (LimitZ::prediction_rule) instead of a number.
  if (record.theorem && record.theorem->rule == PredictionRule::none) withhold_lift_offs(record);
  return record;
}

std::optional<std::string> kinematic_start_refusal(const Model& model, double velocity_tol) {
  if (model.unilateral_kinematic_count() == 0) return std::nullopt;
  const State x = model.initial_state();
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  model.kinematic_affine(x.t, x.q, a, b);
  const Eigen::VectorXd g = a * x.v + b;
  for (int r = 0; r < model.unilateral_kinematic_count(); ++r) {
    if (g(r) < -velocity_tol) {
      return "initial data: one-sided kinematic constraint " + std::to_string(r) +
             " has g = a q' + b = " + format_number(g(r)) +
             " < 0; the ideal motion needs g >= 0 at the start (within contact_velocity_tol)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> EventDrivenSolver::refusal(const Model& model,
                                                      const RunSettings& settings) const {
  const double velocity_tol = parameter_or_default(settings, "contact_velocity_tol");
  if (auto why = kinematic_start_refusal(model, velocity_tol)) return why;
  if (model.has_coulomb_friction() && model.unilateral_kinematic_count() > 0) {
    // The one-sided rows' complementarity (resolve_kinematic) does not take the sliding rows'
    // friction into account.
    return "case " + model.info().name +
           ": Coulomb friction beside one-sided kinematic rows is not computed";
  }
  return bilateral_start_refusal(model, parameter_or_default(settings, "contact_distance_tol"),
                                 velocity_tol);
}

RunRecord EventDrivenSolver::solve(const Model& model, const RunSettings& settings) const {
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  return run_contact_dynamics(model, settings, name(), std::nullopt);
}

}  // namespace crbench
