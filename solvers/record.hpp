// The result of one solve: what `crbench run --json` prints and what studies collect.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cases/case.hpp"

namespace crbench {

struct Event {
  double t = 0.0;
  // "contact", "impact", "lift_off", "switch", "horizon"
  std::string kind;
  // The constraint (contact, impact, lift_off) or switching function (switch); −1 for none.
  int index = -1;
  // ḟ just before and just after, for impacts.
  std::optional<double> rate_before;
  std::optional<double> rate_after;
};

struct RunRecord {
  std::string case_name;
  std::string solver;
  ParamValues params;                                 // the case's, defaults filled in
  ParamValues solver_params;                          // the solver's, defaults filled in
  std::map<std::string, std::string> solver_choices;  // named choices (preset, interaction)
  ParamValues tolerances;     // every tolerance the numbers were computed with
  std::string status = "ok";  // "ok" or a failure kind
  std::string reason;         // why, when status is not "ok"
  std::optional<double> lift_off_time;
  std::string lift_off_definition;
  std::vector<Event> events;
  std::vector<double> min_constraint;  // per constraint, over the run
  State final_state;
  long steps = 0;
  long rhs_evaluations = 0;
  double wall_time_s = 0.0;    // the solve, without the time spent in the caller's callbacks
  double output_time_s = 0.0;  // time spent in the caller's callbacks (writing trajectories)
  // Solver-specific counters and diagnostics (kept in a JSON object so new solvers add fields
  // without touching this struct).
  nlohmann::ordered_json diagnostics = nlohmann::ordered_json::object();
};

// `include_wall_time` = false drops the only fields that differ between identical runs
// (wall_time_s, output_time_s), for byte-for-byte comparison.
nlohmann::ordered_json to_json(const RunRecord& record, bool include_wall_time = true);

// "rtol 1e-12, atol 1e-14, ..." for tables and summaries.
std::string tolerance_text(const ParamValues& tolerances);

}  // namespace crbench
