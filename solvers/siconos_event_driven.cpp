#include "crbench/solvers/siconos_event_driven.hpp"

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
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/siconos_bridge.hpp"
#include "crbench/solvers/siconos_case.hpp"

namespace crbench {

namespace {

// What a contact episode is for this solver (RunRecord::episode_definition).
constexpr const char* kSiconosEpisodeDefinition =
    "the constraint in the Siconos kernel's index set 2 (closed: its force computed by the "
    "acceleration-level LCP): from the nonsmooth event that closes it to the root of its force "
    "that opens it; an impact that does not close it is an episode of zero duration";

// The step of the multiple-impact law's process in the primary contact's impulse.
constexpr double kDefaultImpulseStep = 1e-5;

}  // namespace

std::string SiconosEventDrivenSolver::description() const {
  return "Ideal model by the Siconos kernel (4.4): the case as a LagrangianDS (its mass matrix, "
         "forces and Jacobians), one LagrangianScleronomousR per unilateral constraint, "
         "NewtonImpactNSL, an EventDriven simulation with LsodarOSI (DLSODAR at the run's rtol "
         "and atol) and LCPs at the acceleration and velocity levels; with --impact-law lzb, "
         "Liu, Zhao & Brogliato's MultipleImpact at the impacts instead. Time-independent "
         "unilateral constraints only.";
}

std::vector<ParamSpec> SiconosEventDrivenSolver::parameters() const {
  return {
      kRestitutionSpec,
      {.name = "impulse_step",
       .default_value = kDefaultImpulseStep,
       .min = 1e-12,
       .max = 1.0,
       .unit = "impulse",
       .description =
           "with impact_law lzb: the step in the primary contact's impulse of the "
           "kernel's MultipleImpact (an explicit scheme; docs/siconos.md has its measured error)",
       .omitted_at_default = true},
      {.name = "contact_tol",
       .default_value = 1e-10,
       .min = 0.0,
       .max = 1e-3,
       .min_inclusive = false,
       .description = "the kernel's event tolerance (EventDriven::setToleranceED): a "
                      "constraint with |f| below it is in contact; a gap below -contact_tol "
                      "is an error of the kernel (status step_failure)"},
      kMaxEventsSpec};
}

std::vector<ChoiceSpec> SiconosEventDrivenSolver::choices() const {
  return {{.name = "impact_law",
           .options = {"newton", "lzb"},
           .default_value = "newton",
           .description =
               "the law of impacts: newton (NewtonImpactNSL, an LCP at the velocity level, "
               "restitution e on every contact at once) or lzb (Liu, Zhao & Brogliato 2008: "
               "MultipleImpactNSL and MultipleImpact, the impact integrated in the impulse with "
               "each contact a spring of the case's contact law, Model::contact_law, scaled by "
               "contact_scale; restitution is then the energetic one)",
           .omitted_at_default = true},
          contact_scale_choice()};
}

void SiconosEventDrivenSolver::finalize(ParamValues& /*params*/, ChoiceValues& choices,
                                        const std::vector<std::string>& assigned) const {
  if (choices.at("impact_law") == "lzb") return;
  for (const char* name : {"impulse_step", "contact_scale"}) {
    if (std::find(assigned.begin(), assigned.end(), name) != assigned.end()) {
      // Worded as apply_impact_law's refusals (solvers/impact_law.hpp).
      std::string flag = name;
      std::replace(flag.begin(), flag.end(), '_', '-');
      throw InputError("solver siconos-event-driven: --" + flag +
                       " applies to --impact-law lzb only (impact_law is " +
                       choices.at("impact_law") + ")");
    }
  }
}

std::string SiconosEventDrivenSolver::limit_model(const ParamValues&,
                                                  const ChoiceValues& choices) const {
  // The choice is left out of the settings at its default (newton).
  const auto law = choices.find("impact_law");
  return law != choices.end() && law->second == "lzb" ? "lzb" : "classical";
}

std::optional<std::string> SiconosEventDrivenSolver::refusal(const Model& model,
                                                             const RunSettings& settings) const {
  if (constraints_depend_on_time(model, settings.t_end)) {
    return "case " + model.info().name +
           ": its constraint depends on time (df/dt is not 0), and the Siconos kernel's "
           "event-driven scheme (LsodarOSI) has no acceleration-level LCP for such a relation "
           "(LagrangianRheonomousR); use event-driven, or siconos-moreau-jean";
  }
  return std::nullopt;
}

namespace {

// The kernel stops at every time of its discretisation: the output times, the horizon, at least
// one time between (Siconos 4.4 needs three), and one past the horizon, where the run does not go
// (the kernel's events manager, processing the stop at the horizon, schedules the next time of
// the discretisation and fails without one).
std::vector<double> stop_times(double t0, const RunSettings& settings) {
  std::vector<double> times{t0};
  for (const double t : settings.output_times) {
    if (t > times.back() && t < settings.t_end) times.push_back(t);
  }
  if (times.size() < 2) times.push_back(t0 + 0.5 * (settings.t_end - t0));
  times.push_back(settings.t_end);
  times.push_back(settings.t_end + (settings.t_end - t0));
  return times;
}

// The events of a nonsmooth stop at t: an impact where an impulse meets an approach, a contact
// or a lift-off where a constraint closes or opens (`closed`: each constraint's state before);
// their kinds joined by '&', "" where there are none.
std::string nonsmooth_events_at(double t, siconos::EventDrivenSimulation& simulation,
                                const Eigen::VectorXd& impulse, const Eigen::VectorXd& rate_before,
                                const Eigen::VectorXd& rate_after, std::vector<char>& closed,
                                RunRecord& record) {
  const int m = static_cast<int>(closed.size());
  std::string kinds;
  const auto first_event = record.events.size();
  for (int k = 0; k < m; ++k) {
    auto& was_closed = closed[static_cast<std::size_t>(k)];
    const bool is_closed = simulation.closed(k);
    if (impulse(k) > 0.0 && rate_before(k) < 0.0) {
      record.events.push_back({.t = t,
                               .kind = EventKind::impact,
                               .index = k,
                               .rate_before = rate_before(k),
                               .rate_after = rate_after(k)});
    }
    if (is_closed && !was_closed) {
      record.events.push_back({.t = t, .kind = EventKind::contact, .index = k});
    } else if (!is_closed && was_closed) {
      record.events.push_back({.t = t, .kind = EventKind::lift_off, .index = k});
    }
    was_closed = is_closed ? 1 : 0;
  }
  for (auto e = first_event; e < record.events.size(); ++e) {
    const std::string_view kind = text_of(record.events[e].kind);
    if (kinds.find(kind) != std::string::npos) continue;
    if (!kinds.empty()) kinds += '&';
    kinds += kind;
  }
  return kinds;
}

// The kernel's multiple-impact law with each unilateral constraint's spring (the case's contact
// law, scaled by contact_scale) where impact_law is lzb; nothing for Newton's.
std::optional<siconos::LagrangianProblem::MultipleImpactLaw> multiple_impact_law(
    const Model& model, const RunSettings& settings) {
  const auto law = settings.solver_choices.find("impact_law");
  if (law == settings.solver_choices.end() || law->second != "lzb") return std::nullopt;
  const auto step = settings.solver_params.find("impulse_step");
  siconos::LagrangianProblem::MultipleImpactLaw out;
  out.impulse_step = step != settings.solver_params.end() ? step->second : kDefaultImpulseStep;
  for (const ContactLaw& c : contact_laws(model, settings, "solver siconos-event-driven")) {
    out.stiffness.push_back(c.scale);
    out.exponent.push_back(c.exponent);
  }
  return out;
}

}  // namespace

RunRecord SiconosEventDrivenSolver::solve(const Model& model, const RunSettings& settings) const {
  require_siconos_kernel();
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  // One Siconos solve at a time (siconos_mutex); the wall time starts once this one may run.
  const std::lock_guard<std::mutex> lock(siconos_mutex());
  const auto started = std::chrono::steady_clock::now();
  const ParamValues& p = settings.solver_params;
  const double restitution = p.at("restitution");
  const double contact_tol = p.at("contact_tol");
  const auto max_events = static_cast<long>(p.at("max_events"));
  const int m = model.constraint_count(), n = model.dof();

  RunRecord record = start_record(model, name(), settings);
  State x = model.initial_state();
  const double t0 = x.t;
  record.tolerances = {
      {"rtol", settings.rtol}, {"atol", settings.atol}, {"contact_tol", contact_tol}};
  record.episode_definition = kSiconosEpisodeDefinition;
  const std::optional<siconos::LagrangianProblem::MultipleImpactLaw> multiple_impact =
      multiple_impact_law(model, settings);
  if (multiple_impact) record.tolerances["impulse_step"] = multiple_impact->impulse_step;
  record.min_constraint.assign(static_cast<std::size_t>(m),
                               std::numeric_limits<double>::infinity());

  const std::vector<double> times = stop_times(t0, settings);

  std::optional<SiconosCase> bound;  // the case as the bridge's problem
  std::unique_ptr<siconos::EventDrivenSimulation> simulation;
  double output_seconds = 0.0;
  long nonsmooth_events = 0, stops = 0;
  if (ended_at_non_finite_start(record, model, x, started)) return record;
  try {
    bound.emplace(model, x, settings.t_end, restitution, SiconosCase::Modes::switched, false);
    bound->set_wall_time_bound(started, settings.max_wall_time);
    if (multiple_impact) bound->use_multiple_impact(*multiple_impact);
    simulation = siconos::EventDrivenSimulation::create(
        bound->problem(),
        siconos::EventDrivenSimulation::Tolerances{
            .rtol = settings.rtol, .atol = settings.atol, .contact = contact_tol},
        times);
    Point point;
    Eigen::VectorXd rate_before(m), rate_after(m), force = Eigen::VectorXd::Zero(m),
                                                   impulse = Eigen::VectorXd::Zero(m);
    std::vector<char> closed(static_cast<std::size_t>(m), 0);
    const auto rates = [&](const State& s, Eigen::VectorXd& out) {
      model.evaluate(s, model.modes_at(s), point);
      out = point.constraint_rate(s.v);
      return Eigen::VectorXd(point.f);
    };
    auto next_output = settings.output_times.begin();
    const auto deliver = [&](const State& s, const std::string& label) {
      if (!settings.on_sample) return;
      const auto began = std::chrono::steady_clock::now();
      TrajectorySample sample;
      sample.x = s;
      sample.f = model.constraint_values(s.t, s.q);
      sample.lambda = force;
      sample.mu = Eigen::VectorXd::Zero(m);
      sample.impulse = impulse;
      sample.label = label;
      settings.on_sample(sample);
      output_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    };
    // The kernel's events manager merges events less than GAPLIMIT_DEFAULT ticks of
    // DEFAULT_TICK (100 × 1e-16) apart: an output time that close after a nonsmooth event is
    // processed with it and sampled at the event's stop.
    constexpr double kMergedEvents = 1.0000001 * 100 * 1e-16;
    const auto emit_due = [&](const State& s) {
      bool due = false;
      while (next_output != settings.output_times.end() && *next_output <= s.t + kMergedEvents) {
        due = true;
        ++next_output;
      }
      if (due) deliver(s, "");
    };
    {
      const Eigen::VectorXd f0 = rates(x, rate_before);
      for (int k = 0; k < m; ++k) record.min_constraint[static_cast<std::size_t>(k)] = f0(k);
    }
    emit_due(x);
    const WallTimeBudget wall_time(started, settings.max_wall_time, settings.on_progress);
    while (simulation->has_next()) {
      if (stop_at_wall_time(wall_time, x.t, record)) break;
      simulation->advance();
      ++stops;
      State next{.t = simulation->time(),
                 .q = Eigen::Map<const Eigen::VectorXd>(simulation->q().data(), n),
                 .v = Eigen::Map<const Eigen::VectorXd>(simulation->v().data(), n)};
      if (!next.q.allFinite() || !next.v.allFinite()) {
        record.status = Status::non_finite;
        record.reason = "non-finite state at t = " + format_number(next.t);
        break;
      }
      const Eigen::VectorXd f_next = rates(next, rate_after);
      for (int k = 0; k < m; ++k) {
        auto& slot = record.min_constraint[static_cast<std::size_t>(k)];
        slot = std::min(slot, f_next(k));
        force(k) = simulation->closed(k) ? simulation->force(k) : 0.0;
        impulse(k) = simulation->impulse(k);
      }
      for (const int j : simulation->switch_roots()) {
        record.events.push_back({.t = next.t, .kind = EventKind::switch_function, .index = j});
      }
      if (simulation->nonsmooth()) {
        ++nonsmooth_events;
        State before = next;
        before.v = Eigen::Map<const Eigen::VectorXd>(simulation->v_before().data(), n);
        rates(before, rate_before);
        const std::string kinds = nonsmooth_events_at(next.t, *simulation, impulse, rate_before,
                                                      rate_after, closed, record);
        if (!kinds.empty()) {
          deliver(before, kinds + "-");
          deliver(next, kinds + "+");
        }
        if (nonsmooth_events >= max_events) {
          x = next;
          record.status = Status::too_many_events;
          record.reason = format_number(static_cast<double>(nonsmooth_events)) +
                          " nonsmooth events by t = " + format_number(next.t) +
                          " (max_events); an accumulation of impacts?";
          break;
        }
      }
      x = next;
      emit_due(x);
    }
  } catch (const std::exception& e) {
    record_kernel_failure(record, e, x.t, settings.max_wall_time);
  }
  record.final_state = x;
  if (simulation) {
    record.steps = simulation->steps();
    record.rhs_evaluations = simulation->rhs_evaluations();
  }
  record.diagnostics["nonsmooth_events"] = nonsmooth_events;
  record.diagnostics["stops"] = stops;
  record.diagnostics["force_evaluations"] = bound ? bound->force_evaluations() : 0;
  finish_record(record, model, started, output_seconds);
  return record;
}

}  // namespace crbench
