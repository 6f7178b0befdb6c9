// The one small interface every solver implements, and the solver registry.
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/solvers/record.hpp"

namespace crbench {

// One row of a trajectory: the state and what the model says there.
struct TrajectorySample {
  State x;
  Eigen::VectorXd f;        // constraint values
  Eigen::VectorXd lambda;   // multipliers of the given f (0 for inactive constraints)
  Eigen::VectorXd mu;       // μ = λ·|∇f|_{A⁻¹}
  Eigen::VectorXd impulse;  // impulse P per constraint applied at this row (impacts, time steps)
  Eigen::VectorXd extra;    // the solver's extra columns (Solver::extra_columns), if any
  // "" on the output grid; "<kinds>-" / "<kinds>+" just before / just after an event, where
  // <kinds> joins the event kinds with '&' (e.g. "switch-", "impact+").
  std::string label;
};

// A solver parameter that takes one of a few names (e.g. interaction = medium | obstacle).
struct ChoiceSpec {
  std::string name;
  std::vector<std::string> options;
  std::string default_value;
  std::string description;
  // Values Solver::finalize may record that a user cannot choose (a preset overridden by
  // explicit coefficients is recorded as "custom"); Solver::run accepts them in settings.
  std::vector<std::string> recorded = {};
  // Non-empty: any text is accepted here, of this form (the solver checks it against the case
  // in Solver::solve, where the case is known); `options` is then empty.
  std::string open_form = {};
  // Left out of the settings while at its default (as ParamSpec::omitted_at_default).
  bool omitted_at_default = false;
  // The options as a user reads them: "a | b | c", or the open form.
  std::string accepted_text() const {
    if (!open_form.empty()) return open_form;
    std::string text;
    for (const auto& o : options) text += (text.empty() ? "" : " | ") + o;
    return text;
  }
};
using ChoiceValues = std::map<std::string, std::string>;

struct RunSettings {
  double rtol = 1e-12;
  double atol = 1e-14;
  double t_end = 0.0;           // horizon
  ParamValues solver_params;    // validated against Solver::parameters()
  ChoiceValues solver_choices;  // validated against Solver::choices()
  // Where each solver parameter and choice came from: "default", "default (<note>)", "case"
  // (CaseInfo::solver_settings) or "user".
  std::map<std::string, std::string> parameter_sources;
  // Sorted times at which to report samples (may be empty); samples at events are reported too.
  std::vector<double> output_times;
  std::function<void(const TrajectorySample&)> on_sample;
  // Seconds one solve may take; past it the run ends with status wall_time_exceeded (its record
  // keeps what was computed up to then). Infinite: no bound but the step counters.
  double max_wall_time = std::numeric_limits<double>::infinity();
  // Called about once a second of wall time with the solve's current time t (where the solvers
  // look at their wall-time bound): `crbench run` on a terminal estimates from it how long the
  // run will take. May be empty.
  std::function<void(double t)> on_progress;
};

// What Solver::run (and every command) accepts for the tolerances and the wall-time bound.
inline const ParamSpec kRtolSpec{.name = "rtol", .default_value = 1e-12, .min = 1e-15, .max = 0.1};
inline const ParamSpec kMaxWallTimeSpec{.name = "max_wall_time",
                                        .default_value = std::numeric_limits<double>::infinity(),
                                        .min = 0.0,
                                        .max = 1e6,
                                        .min_inclusive = false};
inline const ParamSpec kAtolSpec{
    .name = "atol", .default_value = 1e-14, .min = 0.0, .max = 1.0, .min_inclusive = false};

// A request that every solve in progress stop, as if its wall-time bound had passed: the Python
// module sets it on Ctrl-C (KeyboardInterrupt), which cannot reach a thread that runs C++ without
// the interpreter. The step loops read it where they check the wall-time bound.
void request_interrupt(bool on);
bool interrupt_requested();
// What a study or sweep throws when it stops for that request, its finished points written.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The wall-time budget of one solve, from its start: cheap enough to call every step.
class WallTimeBudget {
 public:
  WallTimeBudget() = default;
  WallTimeBudget(std::chrono::steady_clock::time_point started, double seconds,
                 std::function<void(double)> on_progress = {})
      : seconds_(seconds),
        deadline_(std::isfinite(seconds)
                      ? started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(seconds))
                      : std::chrono::steady_clock::time_point::max()),
        on_progress_(std::move(on_progress)),
        next_progress_(started + std::chrono::seconds(1)) {}
  bool exceeded() const {
    return interrupt_requested() || std::chrono::steady_clock::now() > deadline_;
  }
  // The same, reporting the solve's time t to on_progress about once a second. For a step loop:
  // it reads the clock at the first call and every kClockPeriod-th after (a step can cost little
  // more than reading the clock; docs/internals.md).
  bool exceeded(double t) const {
    if (calls_++ % kClockPeriod != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (on_progress_ && now >= next_progress_) {
      next_progress_ = now + std::chrono::seconds(1);
      on_progress_(t);
    }
    return now > deadline_ || interrupt_requested();
  }
  double seconds() const { return seconds_; }
  // Why a solve that passed the bound stopped at time t (a record's reason).
  std::string stop_reason(double t) const {
    if (interrupt_requested()) return "interrupted; stopped at t = " + format_number(t);
    return "the solve took more than max_wall_time = " + format_number(seconds_) +
           " s; stopped at t = " + format_number(t);
  }

 private:
  double seconds_ = std::numeric_limits<double>::infinity();
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::function<void(double)> on_progress_;
  mutable std::chrono::steady_clock::time_point next_progress_;
  static constexpr long kClockPeriod = 8;
  mutable long calls_ = 0;
};

// A time-stepping loop's check of its budget at time t: past it, the record's status is
// wall_time_exceeded with the stop's reason, and the loop must end (true).
inline bool stop_at_wall_time(const WallTimeBudget& wall_time, double t, RunRecord& record) {
  if (!wall_time.exceeded(t)) return false;
  record.status = Status::wall_time_exceeded;
  record.reason = wall_time.stop_reason(t);
  return true;
}

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ParamSpec> parameters() const = 0;
  virtual std::vector<ChoiceSpec> choices() const { return {}; }
  // parameters() and choices(), built at the first call and kept: configure_solver and run look
  // them up at every solve (a sweep's point), and they never change.
  const std::vector<ParamSpec>& parameter_specs() const;
  const std::vector<ChoiceSpec>& choice_specs() const;
  // The value of one of its parameters in `settings`, or its default where `settings` has none
  // (settings not configured, such as RunSettings{} asked for a refusal).
  double parameter_or_default(const RunSettings& settings, const std::string& name) const;
  // Adaptive solvers take rtol/atol; fixed-step ones (moreau-jean) reject them.
  virtual bool takes_tolerances() const { return true; }
  // Whether the solver computes cases with kinematic constraints a q̇ + b = 0; the others refuse
  // such a case (InputError, exit 2) rather than ignore the constraint.
  virtual bool handles_kinematic_constraints() const { return false; }
  // Likewise for one-sided kinematic constraints a q̇ + b ≥ 0.
  virtual bool handles_unilateral_kinematic_constraints() const { return false; }
  // Likewise for bilateral holonomic constraints f = 0.
  virtual bool handles_bilateral_constraints() const { return false; }
  // Likewise for Coulomb friction on conditional rows (CaseInfo::coulomb_rows): a solver that
  // would hold such a row whatever its reaction refuses the case.
  virtual bool handles_coulomb_friction() const { return false; }
  // Completes a configuration after defaults and the user's assignments: fills values that
  // depend on a choice (a preset's α, β, γ) where `assigned` does not name them, and rejects
  // inadmissible combinations with an InputError naming the items.
  virtual void finalize(ParamValues& /*params*/, ChoiceValues& /*choices*/,
                        const std::vector<std::string>& /*assigned*/) const {}
  // The model whose analytic facts (Facts::lift_off, Facts::trajectories) this solver's run
  // approximates with these settings: "classical", "viscous", ...
  virtual std::string limit_model(const ParamValues& params, const ChoiceValues& choices) const = 0;
  // Names of the extra trajectory columns this solver fills in TrajectorySample::extra.
  virtual std::vector<std::string> extra_columns(const Model& /*model*/,
                                                 const RunSettings& /*settings*/) const {
    return {};
  }
  // Why the solver cannot start from this case's data with these settings (its run then throws
  // InputError with the same text), or nothing.
  virtual std::optional<std::string> refusal(const Model& /*model*/,
                                             const RunSettings& /*settings*/) const {
    return std::nullopt;
  }
  // Checks the settings, then solves. InputError naming the item when the horizon t_end is not
  // after the case's initial time (RunSettings{} has t_end = 0), rtol, atol or max_wall_time is
  // out of range, the output times are not sorted within [t0, t_end], a parameter or choice is not
  // the solver's or not admissible, or one this configuration needs is missing. Settings with no
  // parameters and no choices at all get the defaults and the case's settings (configure_solver
  // with no assignments). A solve that fails is a record with its status, not an exception.
  RunRecord run(const Model& model, const RunSettings& settings) const;

 protected:
  // The solve itself, with settings that run() has checked.
  virtual RunRecord solve(const Model& model, const RunSettings& settings) const = 0;

 private:
  mutable std::once_flag specs_built_;
  mutable std::vector<ParamSpec> parameter_specs_;
  mutable std::vector<ChoiceSpec> choice_specs_;
  // The parameter and choice names configure_solver fills for a configuration (run's check that
  // settings lack none of them), by the case's settings for this solver and the choices given:
  // found at the first run of each configuration and kept, as a sweep runs one configuration at
  // thousands of points (from several threads).
  struct RequiredNames {
    std::vector<std::string> params, choices;
  };
  mutable std::mutex required_names_mutex_;
  mutable std::map<std::string, RequiredNames> required_names_;
};

// The impact law of the ideal model, shared by the solvers that apply it (event-driven and
// moreau-jean): Newton restitution on the normal velocity in the kinetic metric.
inline const ParamSpec kRestitutionSpec{.name = "restitution",
                                        .default_value = 1.0,
                                        .min = 0.0,
                                        .max = 1.0,
                                        .description =
                                            "Newton restitution e on the normal velocity: f'+ = "
                                            "-e f'- in the kinetic metric, tangential momentum "
                                            "kept (Kugushev & Sorokina 2002 (1.4) is e = 1, "
                                            "elastic; their section 9 law is misprinted, see "
                                            "docs/theory.md section 2)"};

// The bounds the solvers share, one spec (name, default, range, meaning) each, so that every
// solver that has one states it alike.
inline const ParamSpec kEventTimeToleranceSpec{
    .name = "event_time_tol",
    .default_value = 1e-14,
    .min = 0.0,
    .max = 1e-6,
    .min_inclusive = false,
    .description = "absolute tolerance of event times (root refinement)"};
// When an ideal constraint touches and when its arrival is an impact (event-driven, limit, and the
// constraints the realization leaves ideal).
inline const ParamSpec kContactDistanceTolSpec{
    .name = "contact_distance_tol",
    .default_value = 1e-10,
    .min = 0.0,
    .max = 1e-3,
    .min_inclusive = false,
    .description = "|f| below which a constraint counts as touching"};
inline const ParamSpec kContactVelocityTolSpec{
    .name = "contact_velocity_tol",
    .default_value = 1e-8,
    .min = 0.0,
    .max = 1e-2,
    .min_inclusive = false,
    .description = "|f'| below which an arrival is tangential (smaller impacts end plastically)"};
// An adaptive solver counts its accepted steps as it goes.
inline const ParamSpec kMaxStepsSpec{
    .name = "max_steps",
    .default_value = 1e7,
    .min = 1,
    .max = 1e12,
    .description = "accepted steps before the run ends with status too_many_steps",
    .whole = true};
// A fixed-step solver knows its steps before it starts, and a step costs about a microsecond: its
// bound is a hundred times the adaptive one.
inline const ParamSpec kMaxFixedStepsSpec{
    .name = "max_steps",
    .default_value = 1e9,
    .min = 1,
    .max = 1e12,
    .description = "steps allowed; more needed ends the run before it starts (too_many_steps)",
    .whole = true};
inline const ParamSpec kMaxEventsSpec{
    .name = "max_events",
    .default_value = 1e6,
    .min = 1,
    .max = 1e12,
    .description =
        "events (contacts, lift-offs, impacts, switches) before the run ends with "
        "status too_many_events",
    .whole = true};
inline const ParamSpec kMaxStepFractionSpec{
    .name = "max_step_fraction",
    .default_value = 0.02,
    .min = 0.0,
    .max = 1.0,
    .min_inclusive = false,
    .description = "largest step as a fraction of the horizon (bounds what a step can hide)"};

// Defaults, then the case's settings for this solver (if a case is given), then the user's
// assignments (numeric parameters and choices alike, by name), then Solver::finalize; fills
// settings.parameter_sources. InputError on an unknown name, a bad value or a bad combination.
void configure_solver(const Solver& solver, const std::vector<Assignment>& assignments,
                      RunSettings& settings, const CaseInfo* case_info = nullptr);

// What of the case the solver does not compute ("kinematic constraints", "one-sided kinematic
// constraints", "bilateral constraints", "Coulomb friction"), or nothing when it computes all of
// it.
std::optional<std::string> unsupported_part(const Solver& solver, const CaseInfo& info);
// A record with what identifies the run: case, solver, the case's parameters, the solver's
// parameters and choices.
RunRecord start_record(const Model& model, const std::string& solver, const RunSettings& settings);
// Whether a constraint of the case depends on t: ∂f/∂t at the start, and with the start's q at
// times across the horizon up to t_end.
bool constraints_depend_on_time(const Model& model, double t_end);
// Why a time-stepping solver cannot start from the state x, if it cannot: a non-finite q, q̇,
// metric, constraint value, gradient or force there (with a step of it the record would carry
// the non-finite state as a result; the Siconos kernel asserts on a NaN gap and aborts the
// process).
std::optional<std::string> non_finite_start(const Model& model, const State& x);
// The end of every solve: wall time without the caller's callbacks (`output_seconds`), and the
// contact episodes with the lift-off time (finish_contact_episodes).
void finish_record(RunRecord& record, const Model& model,
                   std::chrono::steady_clock::time_point started, double output_seconds);
// A run that ends before its first step: its status and reason, the initial state x as the final
// one, and the record finished (finish_record, no output time).
void end_before_start(RunRecord& record, Status status, std::string reason, const State& x,
                      const Model& model, std::chrono::steady_clock::time_point started);

// InputError when the case has constraints the solver does not compute (called by Solver::run
// for every solver before its own checks, so that no caller can get a run that ignores them).
void require_support(const Solver& solver, const Model& model);

const std::vector<std::unique_ptr<Solver>>& solver_registry();
// InputError naming the known solvers when there is none of that name.
const Solver& find_solver(std::string_view name);

}  // namespace crbench
