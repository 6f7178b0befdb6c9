// The result of one solve: what `crbench run --json` prints and what studies collect.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "crbench/cases/case.hpp"
#include "crbench/solvers/outcome.hpp"

namespace crbench {

struct Event {
  double t = 0.0;
  EventKind kind = EventKind::contact;
  // The constraint (contact, impact, lift_off) or switching function (switch); −1 for none.
  int index = -1;
  // ḟ just before and just after, for impacts.
  std::optional<double> rate_before;
  std::optional<double> rate_after;
};

// One interval during which a constraint acts: a sustained contact (event-driven, limit), a
// stay in the medium (realization), consecutive steps with an impulse (moreau-jean), or an impact
// (start = end).
struct ContactEpisode {
  int constraint = -1;
  double start = 0.0;
  std::optional<double> end;  // nullopt: still open at the end of the run
  bool impact = false;        // began with an impact
};

// The one definition of lift_off_time, for every solver.
inline constexpr const char* kLiftOffDefinition =
    "the end of the last contact episode, provided no constraint is in contact from then to the "
    "end of the run; null when the run ends in contact or never touches a constraint";

// The same definition for one constraint: its lift-off, whatever the other constraints do.
inline constexpr const char* kConstraintLiftOffDefinition =
    "per constraint: the end of its last contact episode, provided it is not in contact from then "
    "to the end of the run; null when it ends in contact or never touches";

// The limit model's outcome for its own prediction, set by the limit solver alone: whether
// Deryabin & Kozlov 1995 Theorem 1 applies, by which rule the lift-off is predicted, and why not
// where it does not apply.
struct TheoremOutcome {
  bool applies = true;
  PredictionRule rule = PredictionRule::theorem_1;
  std::string why;
};

struct RunRecord {
  std::string case_name;
  std::string solver;
  ParamValues params;                                 // the case's, defaults filled in
  ParamValues solver_params;                          // the solver's, defaults filled in
  std::map<std::string, std::string> solver_choices;  // named choices (preset, interaction)
  // Where each solver parameter and choice came from (RunSettings::parameter_sources).
  std::map<std::string, std::string> parameter_sources;
  ParamValues tolerances;  // every tolerance the numbers were computed with
  Status status = Status::ok;
  std::string reason;  // why, when status is not ok
  // Numbers the run could not resolve although it ended ok (e.g. an exit time below the
  // round-off floor of f): a user reading an ok record must see them.
  std::vector<std::string> warnings;
  std::optional<TheoremOutcome> theorem;  // the limit solver's (also in diagnostics, for the JSON)
  std::optional<double> lift_off_time;    // kLiftOffDefinition, from contact_episodes
  std::string lift_off_definition;        // kLiftOffDefinition
  // Per constraint f_k, its own lift-off (kConstraintLiftOffDefinition), from contact_episodes.
  std::vector<std::optional<double>> constraint_lift_off_time;
  // Set by withhold_lift_offs: the solver states no lift-off of any kind (not the last, not the
  // first, of no constraint), whatever contact_episodes show.
  bool lift_offs_withheld = false;
  std::string episode_definition;  // what a contact episode is for this solver
  std::vector<ContactEpisode> contact_episodes;
  std::vector<Event> events;
  std::vector<double> min_constraint;  // per constraint, over the run
  // Per constraint f_k, the impulse of its reaction over the run: ∫λ_k dt over the smooth phases
  // plus the impact impulses P_k, with the generalized force J_kᵀλ_k (A q̈ = F + Jᵀλ); the
  // realization's λ_k = −N(α f̈_k + β ḟ_k + γ f_k) while the medium pushes. In the units of
  // energy·time per unit of f_k (momentum where f_k is a length).
  std::vector<double> constraint_impulse;
  // The case's coordinates (name and unit of each q_i; final_state's q and v are in this order)
  // and the units of its constraint values.
  std::vector<CoordinateSpec> coordinates;
  std::vector<std::string> constraint_units;
  std::vector<std::string> constraint_names;
  State final_state;
  long steps = 0;
  long rhs_evaluations = 0;
  double wall_time_s = 0.0;    // the solve, without the time spent in the caller's callbacks
  double output_time_s = 0.0;  // time spent in the caller's callbacks (writing trajectories)
  // Solver-specific counters and diagnostics (kept in a JSON object so new solvers add fields
  // without touching this struct).
  nlohmann::ordered_json diagnostics = nlohmann::ordered_json::object();
};

// Fills contact_episodes from the events and sets lift_off_time and lift_off_definition
// (kLiftOffDefinition), and constraint_lift_off_time for each of the record's constraint_names.
// Events: "contact" and "enter_medium" open an episode, "lift_off" and "exit_medium" close it, an
// "impact" is an episode of zero duration unless a "contact" at the same time keeps it open; an
// episode that closes without having opened began at t0 (a run that starts in contact or in the
// medium).
void finish_contact_episodes(RunRecord& record, double t0);

// `include_wall_time` = false drops the only fields that differ between identical runs
// (wall_time_s, output_time_s), for byte-for-byte comparison.
// The lift-off of the whole system (nullopt) or of constraint k (nullopt where the record has
// no such constraint).
std::optional<double> lift_off_of(const RunRecord& record, std::optional<int> constraint);
// Withholds every lift-off of the record (the whole system's and each constraint's), where the
// solver cannot state one.
void withhold_lift_offs(RunRecord& record);

nlohmann::ordered_json to_json(const RunRecord& record, bool include_wall_time = true);

// "rtol 1e-12, atol 1e-14, ..." for tables and summaries.
std::string tolerance_text(const ParamValues& tolerances);

}  // namespace crbench
