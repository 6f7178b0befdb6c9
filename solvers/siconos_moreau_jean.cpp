#include "crbench/solvers/siconos_moreau_jean.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "crbench/cases/params.hpp"
#include "crbench/solvers/event_driven.hpp"
#include "crbench/solvers/siconos_bridge.hpp"
#include "crbench/solvers/siconos_case.hpp"
#include "crbench/solvers/step_output.hpp"

namespace crbench {

namespace {

// The step times of moreau-jean: t0 + k h, the last step shortened to end at the horizon. At
// least two steps: Siconos 4.4's TimeStepping aborts the process (an assertion on a NaN next
// time) with a discretisation of one step; a horizon within one step is then cut in two halves.
// Building them is held to max_wall_time (the record's status and reason say so when it is not).
std::vector<double> step_times(double t0, double t_end, double h, double steps_needed,
                               std::chrono::steady_clock::time_point started, double max_wall_time,
                               RunRecord& record) {
  const double span = t_end - t0;
  std::vector<double> times{t0};
  if (steps_needed < 2.0) {
    times.push_back(t0 + 0.5 * span);
    record.warnings.push_back("the horizon is within one step of h = " + format_number(h) +
                              ": two steps of " + format_number(0.5 * span) +
                              " (Siconos needs at least two)");
  } else {
    // The kernel takes every step's time up front: at a long horizon and a small h that is
    // hundreds of millions of times and gigabytes before the first step (docs/internals.md).
    // Building them is held to max_wall_time as the steps are.
    const auto count = static_cast<long>(steps_needed);
    const WallTimeBudget grid_time(started, max_wall_time);
    times.reserve(static_cast<std::size_t>(count) + 1);
    for (long k = 1; k < count; ++k) {
      if (k % (1L << 16) == 0 && grid_time.exceeded()) {
        record.status = Status::wall_time_exceeded;
        record.reason = "the solve took more than max_wall_time = " + format_number(max_wall_time) +
                        " s building the " + format_number(steps_needed) +
                        " step times that Siconos takes before the first step (" +
                        std::to_string(k) + " built); stopped at t = " + format_number(t0);
        break;
      }
      times.push_back(t0 + static_cast<double>(k) * h);
    }
  }
  times.push_back(t_end);
  return times;
}

// Episodes as moreau-jean keeps them (its record's episode_definition): an impulse that starts
// with an approach is an impact, one that persists past its step a contact, and the step without
// one after a contact its lift-off.
enum class Episode : char { none, impact, open };

// The step from t to t_next with the kernel's impulses: the record's impulses, smallest
// constraint values and events.
void record_step(const Model& model, double t, double t_next, const Eigen::VectorXd& impulse,
                 const Eigen::VectorXd& rate_before, const Eigen::VectorXd& rate_after,
                 const Eigen::VectorXd& f_next, std::vector<Episode>& episode, RunRecord& record) {
  for (int k = 0; k < static_cast<int>(episode.size()); ++k) {
    record.constraint_impulse[static_cast<std::size_t>(k)] += impulse(k);
    auto& slot = record.min_constraint[static_cast<std::size_t>(k)];
    slot = std::min(slot, f_next(k));
    // A bilateral constraint acts at every step with an impulse of either sign: no episodes.
    if (model.is_bilateral(k)) continue;
    auto& state = episode[static_cast<std::size_t>(k)];
    if (impulse(k) > 0.0 && state == Episode::none) {
      const bool impact = rate_before(k) < 0.0;
      record.events.push_back({.t = t_next,
                               .kind = impact ? EventKind::impact : EventKind::contact,
                               .index = k,
                               .rate_before = rate_before(k),
                               .rate_after = rate_after(k)});
      state = impact ? Episode::impact : Episode::open;
    } else if (impulse(k) > 0.0 && state == Episode::impact) {
      // The impulse persists after the impact step: the episode goes on as a contact.
      record.events.push_back({.t = t, .kind = EventKind::contact, .index = k});
      state = Episode::open;
    } else if (!(impulse(k) > 0.0)) {
      if (state == Episode::open) {
        record.events.push_back({.t = t, .kind = EventKind::lift_off, .index = k});
      }
      state = Episode::none;
    }
  }
}

// The Coulomb rows' stick and slip in the step from t to t_next, as moreau-jean records them: a
// row sticks while its contact takes a normal impulse and its tangential one lies strictly inside
// the cone (kinematic_contact at the step's end), and slides otherwise (kinematic_release at its
// start); events where that changes.
void record_slips(const Model& model, double t, double t_next, const Eigen::VectorXd& impulse,
                  const Eigen::VectorXd& tangential, std::vector<char>& sticking,
                  RunRecord& record) {
  for (const int r : model.info().coulomb_rows) {
    const int k = model.kinematic_condition(r);
    const char now = step_sticks(impulse(k), tangential(k), model.friction_coefficient(r)) ? 1 : 0;
    auto& slot = sticking[static_cast<std::size_t>(r)];
    if (now == slot) continue;
    record.events.push_back(
        {.t = now != 0 ? t_next : t,
         .kind = now != 0 ? EventKind::kinematic_contact : EventKind::kinematic_release,
         .index = r});
    slot = now;
  }
}

}  // namespace

std::string SiconosMoreauJeanSolver::description() const {
  return "Ideal model by the Siconos kernel (4.4): the case as a LagrangianDS (its mass matrix, "
         "forces and Jacobians), one LagrangianScleronomousR per unilateral constraint, "
         "NewtonImpactNSL, MoreauJeanOSI(theta) in a TimeStepping simulation with Siconos's LCP "
         "(Lemke) at each step; a LagrangianRheonomousR (h = f(t, q), hdot = df/dt) for a "
         "constraint that depends on time; a bilateral constraint as an EqualityConditionNSL row "
         "of an MLCP; Coulomb friction by NewtonImpactFrictionNSL (tangential restitution 0) and "
         "a FrictionContact problem of dimension 2 (Siconos numerics' fc2d enumeration). No other "
         "kinematic constraints.";
}

std::vector<ParamSpec> SiconosMoreauJeanSolver::parameters() const {
  return {{.name = "h",
           .default_value = 1e-3,
           .min = 0.0,
           .max = 1.0,
           .min_inclusive = false,
           .unit = "time",
           .description = "time step (made span/ceil(span/h) so that the last step ends at the "
                          "horizon)"},
          {.name = "theta",
           .default_value = 0.5,
           .min = 0.5,
           .max = 1.0,
           .description = "theta of MoreauJeanOSI (0.5 trapezoidal, 1 backward Euler)"},
          kRestitutionSpec,
          kMaxFixedStepsSpec};
}

std::optional<std::string> SiconosMoreauJeanSolver::refusal(const Model& model,
                                                            const RunSettings& /*settings*/) const {
  if (const auto why = coulomb_refusal(model)) return why;
  // The ideal holonomic motion needs f = 0 and f' = 0 at the start, as event-driven's (within its
  // default contact_distance_tol 1e-10 and contact_velocity_tol 1e-8).
  if (model.bilateral_count() == 0) return std::nullopt;
  return bilateral_start_refusal(model, 1e-10, 1e-8);
}

// The cases whose Coulomb friction the kernel's interactions express: each unilateral constraint
// with exactly one Coulomb row, a slip a q̇ with no b (a fixed surface), constraints that do not
// depend on time, nothing bilateral.
std::optional<std::string> SiconosMoreauJeanSolver::coulomb_refusal(const Model& model) const {
  const CaseInfo& info = model.info();
  if (info.coulomb_rows.empty()) return std::nullopt;
  const std::string prefix = "--solver: siconos-moreau-jean: ";
  if (const auto why = coulomb_pairing_refusal(model)) return prefix + *why;
  if (model.bilateral_count() > 0) {
    return prefix + "Coulomb friction beside bilateral constraints is not computed (case " +
           info.name + ")";
  }
  const State x0 = model.initial_state();
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
  model.kinematic_affine(x0.t, x0.q, a, b);
  if (constraints_depend_on_time(model, model.horizon()) ||
      (b.size() > 0 && b.lpNorm<Eigen::Infinity>() > 0.0)) {
    return prefix +
           "Coulomb friction is computed on fixed contact surfaces only (constraints "
           "that do not depend on time, slips a q' with no term b; case " +
           info.name + ")";
  }
  return std::nullopt;
}

RunRecord SiconosMoreauJeanSolver::solve(const Model& model, const RunSettings& settings) const {
  require_siconos_kernel();
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  // One Siconos solve at a time (siconos_mutex); the wall time starts once this one may run.
  const std::lock_guard<std::mutex> lock(siconos_mutex());
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;
  const double theta = p.at("theta");
  const double restitution = p.at("restitution");
  const int m = model.constraint_count();

  RunRecord record = start_record(model, name(), settings);
  State x = model.initial_state();
  const double t0 = x.t;
  // The scale the penetration is measured against, as moreau-jean's: |q| at the start, or the
  // largest |q| seen when that is 0.
  const double start_size = x.q.lpNorm<Eigen::Infinity>();
  double coordinate_size = start_size;
  const double span = settings.t_end - t0;
  const double steps_needed = std::ceil(span / p.at("h") - 1e-9);
  if (steps_needed > p.at("max_steps")) {
    end_before_start(record, Status::too_many_steps,
                     format_number(steps_needed) + " steps of h = " + format_number(p.at("h")) +
                         " are needed and max_steps is " + format_number(p.at("max_steps")),
                     x, model, started);
    return record;
  }
  const double h = p.at("h");
  const std::vector<double> times =
      step_times(t0, settings.t_end, h, steps_needed, started, settings.max_wall_time, record);
  record.tolerances = {{"h", h}, {"theta", theta}};
  record.episode_definition = kStepEpisodeDefinition;
  record.min_constraint.assign(static_cast<std::size_t>(m),
                               std::numeric_limits<double>::infinity());
  record.constraint_impulse.assign(static_cast<std::size_t>(m), 0.0);

  if (record.status != Status::ok) {  // the grid cut short by the wall time: no kernel run
    record.final_state = x;
    finish_record(record, model, started, 0.0);
    return record;
  }
  std::optional<SiconosCase> bound;  // the case as the bridge's problem
  StepOutput output(settings, h);
  if (ended_at_non_finite_start(record, model, x, started)) return record;
  try {
    const int n = model.dof();
    bound.emplace(model, x, settings.t_end, restitution, SiconosCase::Modes::of_state,
                  constraints_depend_on_time(model, settings.t_end));
    bound->set_wall_time_bound(started, settings.max_wall_time);
    const auto simulation = siconos::MoreauJeanTimeStepping::create(bound->problem(), theta, times);

    std::vector<Episode> episode(static_cast<std::size_t>(m), Episode::none);
    Eigen::VectorXd impulse = Eigen::VectorXd::Zero(m), rate_before(m), rate_after(m);
    // With Coulomb friction: each constraint's tangential impulse, each row's stick.
    Eigen::VectorXd tangential = Eigen::VectorXd::Zero(m);
    std::vector<char> sticking(
        model.info().coulomb_rows.empty() ? 0 : static_cast<std::size_t>(model.kinematic_count()),
        0);
    Point point;
    double last_step = h;  // the length of the step that ended at the sample
    const auto rates = [&](const State& s, Eigen::VectorXd& out) {
      model.evaluate(s, model.modes_at(s), point);
      out = point.constraint_rate(s.v);
      return Eigen::VectorXd(point.f);
    };
    const auto emit = [&](const State& before, const State& after) {
      output.step_end(before, after, [&](const State& s, bool /*at_end*/) {
        TrajectorySample sample;
        sample.x = s;
        sample.f = model.constraint_values(s.t, s.q);
        sample.lambda = impulse / last_step;
        sample.mu = Eigen::VectorXd::Zero(m);
        sample.impulse = impulse;
        return sample;
      });
    };
    {
      const Eigen::VectorXd f0 = rates(x, rate_before);
      for (int k = 0; k < m; ++k) record.min_constraint[static_cast<std::size_t>(k)] = f0(k);
    }
    emit(x, x);
    const WallTimeBudget wall_time(started, settings.max_wall_time, settings.on_progress);
    while (simulation->has_next()) {
      if (stop_at_wall_time(wall_time, x.t, record)) break;
      rates(x, rate_before);
      simulation->step();
      State next{.t = simulation->time(),
                 .q = Eigen::Map<const Eigen::VectorXd>(simulation->q().data(), n),
                 .v = Eigen::Map<const Eigen::VectorXd>(simulation->v().data(), n)};
      if (!next.q.allFinite() || !next.v.allFinite()) {
        record.status = Status::non_finite;
        record.reason = "non-finite state at t = " + format_number(next.t);
        break;
      }
      const Eigen::VectorXd f_next = rates(next, rate_after);
      last_step = next.t - x.t;
      for (int k = 0; k < m; ++k) impulse(k) = simulation->impulse(k);
      record_step(model, x.t, next.t, impulse, rate_before, rate_after, f_next, episode, record);
      if (!sticking.empty()) {
        for (int k = 0; k < m; ++k) tangential(k) = simulation->tangential_impulse(k);
        record_slips(model, x.t, next.t, impulse, tangential, sticking, record);
      }
      std::swap(x, next);  // next: the step's start, for the samples between its ends
      ++record.steps;
      if (!(start_size > 0.0)) {
        coordinate_size = std::max(coordinate_size, x.q.lpNorm<Eigen::Infinity>());
      }
      emit(next, x);
    }
  } catch (const std::exception& e) {
    record_kernel_failure(record, e, x.t, settings.max_wall_time);
  }
  if (record.status == Status::ok) {
    // The penetration of the unilateral constraints (the first m - bilateral_count rows).
    const std::vector<double> unilateral(
        record.min_constraint.begin(),
        record.min_constraint.end() - std::min<std::ptrdiff_t>(model.bilateral_count(), m));
    if (auto warning = penetration_warning(unilateral, coordinate_size)) {
      record.warnings.push_back(std::move(*warning));
    }
  }
  record.final_state = x;
  record.rhs_evaluations = bound ? bound->force_evaluations() : 0;
  finish_record(record, model, started, output.seconds());
  return record;
}

}  // namespace crbench
