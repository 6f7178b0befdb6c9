#include "crbench/bench/study.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "crbench/bench/convergence.hpp"
#include "crbench/bench/json_fields.hpp"
#include "crbench/bench/observables.hpp"
#include "crbench/bench/run_support.hpp"
#include "crbench/cases/registry.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {
namespace {

std::vector<double> number_list(const nlohmann::json& j, const std::string& path,
                                const ParamSpec& bounds, std::size_t min_count) {
  // The bound keeps a study's point count (and its run time) within what a table can show.
  constexpr std::size_t max_count = 200;
  if (!j.is_array() || j.size() < min_count || j.size() > max_count) {
    throw InputError(path + ": must be an array of " + std::to_string(min_count) + " to " +
                     std::to_string(max_count) + " numbers in " + bounds.range_text());
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (!j[i].is_number() || !std::isfinite(j[i].get<double>()) ||
        !bounds.admits(j[i].get<double>())) {
      throw InputError(item + ": must be a number in " + bounds.range_text());
    }
    out.push_back(j[i].get<double>());
  }
  return out;
}

std::string solver_names() {
  std::vector<std::string> names;
  for (const auto& s : solver_registry()) names.push_back(s->name());
  return join(names);
}

bool solver_has_N(const Solver& solver) {
  for (const auto& p : solver.parameters()) {
    if (p.name == "N") return true;
  }
  return false;
}

// The model the solver approximates with these settings (as in Facts), or InputError prefixed.
// A case's facts depend only on the case and its parameter values, and some take quadratures
// (particle-on-circle's viscous lift-off): each is computed once per process.
Facts facts_of(const Model& model) {
  static std::mutex mutex;
  static std::map<std::string, Facts> cache;
  const std::string key = model_key(model);
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, model.facts()).first;
  return it->second;
}

// The solver's settings from the model's assignments, or InputError prefixed with `path`.
RunSettings settings_of(const Solver& solver, const std::vector<Assignment>& assignments,
                        const std::string& path) {
  RunSettings settings;
  try {
    configure_solver(solver, assignments, settings);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return settings;
}

std::string limit_model_of(const Solver& solver, const std::vector<Assignment>& assignments,
                           const std::string& path) {
  const RunSettings settings = settings_of(solver, assignments, path);
  return solver.limit_model(settings.solver_params, settings.solver_choices);
}

// A model's own ladder (study.models[i].ladder): in h, rtol or a parameter of its solver or case.
void read_own_ladder(Fields& m, const nlohmann::json& own, const Solver& solver,
                     const Model& model_case, StudyModel& sm) {
  // An h or rtol ladder of the model's own.
  Fields ladder(own, m.path("ladder"));
  const std::string axis_text = ladder.text("axis");
  const std::vector<ParamSpec> parameters = solver.parameters();
  const auto spec_named = [&](const std::string& name) {
    return std::find_if(parameters.begin(), parameters.end(),
                        [&](const ParamSpec& p) { return p.name == name; });
  };
  // A model parameter of the solver (the added mass alpha as it tends to 0, Deryabin &
  // Kozlov 1995 §5), other than N, h and rtol, which have their own axes.
  const bool parameter_axis = axis_text != "N" && axis_text != "h" && axis_text != "rtol" &&
                              spec_named(axis_text) != parameters.end();
  // Else a parameter of the model's case that tends to its lower bound (an oscillation's
  // energy E → 0, Berezinskaya, Sorokina & Kugushev 2003 (9.2)).
  const auto case_parameters = model_case.info().params;
  const auto case_spec = std::find_if(case_parameters.begin(), case_parameters.end(),
                                      [&](const ParamSpec& p) { return p.name == axis_text; });
  const bool case_axis = !parameter_axis && axis_text != "N" && axis_text != "h" &&
                         axis_text != "rtol" && case_spec != case_parameters.end();
  if (parameter_axis || case_axis) {
    sm.axis = LadderAxis::parameter;
    sm.ladder_parameter = axis_text;
    sm.ladder_on_case = case_axis;
  } else {
    try {
      sm.axis = parse_axis(axis_text, m.path("ladder.axis"));
    } catch (const InputError&) {
      std::string names;
      for (const ParamSpec& p : parameters) {
        if (p.name != "N" && p.name != "h") names += ", " + p.name;
      }
      throw InputError(
          m.path("ladder.axis") + ": '" + axis_text + "' is not h, rtol or a parameter of solver " +
          sm.solver +
          (names.empty() ? std::string(" (it has none)") : " (" + names.substr(2) + ")"));
    }
  }
  // Its own N ladder: where the study's rungs per decade are too few for this model, or too
  // costly beyond a decade.
  const bool in_N = sm.axis == LadderAxis::N;
  if (in_N && !solver_has_N(solver)) {
    throw InputError(m.path("ladder.axis") + ": solver " + sm.solver + " has no N");
  }
  const bool in_h = sm.axis == LadderAxis::h;
  const auto h_spec = spec_named("h");
  if (in_h && h_spec == parameters.end()) {
    throw InputError(m.path("ladder.axis") + ": solver " + sm.solver +
                     " has no step h (an h ladder needs a fixed-step solver)");
  }
  if (sm.axis == LadderAxis::rtol && !solver.takes_tolerances()) {
    throw InputError(m.path("ladder.axis") + ": solver " + sm.solver +
                     " takes no rtol (an rtol ladder needs an adaptive solver)");
  }
  ParamSpec bounds = parameter_axis ? *spec_named(axis_text)
                     : case_axis    ? *case_spec
                     : in_h         ? *h_spec
                     : in_N         ? *spec_named("N")
                                    : kRtolSpec;
  // The rungs are geometric (per_decade of them a decade): both ends positive, whatever the
  // parameter admits (an alpha ladder to 0 once made its rung count from log(0.1/0)).
  if (!(bounds.min > 0.0)) {
    bounds.min = 0.0;
    bounds.min_inclusive = false;
  }
  const double from = ladder.number("from", std::nullopt, bounds);
  // Coarse to fine: N rises, the others fall.
  const double to =
      in_N ? ladder.number("to", std::nullopt, range(from, bounds.max, false))
           : ladder.number("to", std::nullopt, range(bounds.min, from, bounds.min_inclusive));
  const double per_decade = ladder.number("per_decade", 1.0, range(1.0, 10.0));
  if (per_decade != std::floor(per_decade)) {
    throw InputError(m.path("ladder.per_decade") + ": must be a whole number in [1, 10]");
  }
  ladder.finish();
  if (in_N ? !(to > from) : !(to < from)) {
    throw InputError(m.path("ladder.to") + ": must be " + (in_N ? "above" : "below") +
                     " ladder.from (" + format_number(from) +
                     "): a ladder runs from coarse to fine");
  }
  sm.ladder = ladder_rungs(sm.axis, from, to, static_cast<int>(per_decade));
  if (sm.ladder.size() < 3 || sm.ladder.size() > 200) {
    throw InputError(m.path("ladder") + ": the ladder has " + std::to_string(sm.ladder.size()) +
                     " points; it needs between 3 and 200");
  }
  sm.has_ladder = true;
  if (m.find("N_min") || m.find("N_max")) {
    throw InputError(m.path(m.find("N_min") ? "N_min" : "N_max") +
                     ": cuts the study's N ladder; this model runs its own " + axis_text +
                     " ladder");
  }
}

// The model's rungs of the study's N ladder, between its N_min and N_max.
void read_N_ladder(Fields& m, const Study& study, const Solver& solver, StudyModel& sm) {
  if (!sm.has_ladder && solver_has_N(solver)) {
    const double N_max = m.number("N_max", 1e15, range(0.0, 1e15, false));
    const double N_min = m.number("N_min", 0.0, range(0.0, 1e15));
    if (study.ladder.empty()) {
      throw InputError("study.N: required: model '" + sm.label + "' (solver " + sm.solver +
                       ") runs the study's N ladder");
    }
    for (const double N : study.ladder) {
      if (N <= N_max * (1.0 + 1e-12) && N >= N_min * (1.0 - 1e-12)) sm.ladder.push_back(N);
    }
    if (sm.ladder.size() < 3) {
      throw InputError(m.path(m.find("N_min") ? "N_min" : "N_max") + ": N_min " +
                       format_number(N_min) + " and N_max " + format_number(N_max) +
                       " leave fewer than 3 points of the ladder");
    }
    sm.has_ladder = true;
  }
}

// An InputError naming `where` unless `key` is one of the study's observables.
void require_study_observable(const Study& study, const std::string& key,
                              const std::string& where) {
  if (std::find(study.observables.begin(), study.observables.end(), key) ==
      study.observables.end()) {
    throw InputError(where + ": not one of the study's observables (" + join(study.observables) +
                     ")");
  }
}

// What the model is measured against: the limit solver, a closed form, a solver or values.
void read_reference(Fields& m, const Study& study, const Model& model_case, StudyModel& sm) {
  sm.reference =
      m.text("reference",
             std::string(sm.has_ladder && sm.axis != LadderAxis::N ? "closed-form" : "limit"));
  if (sm.ladder_on_case && sm.reference != "value") {
    // Every rung is another system: no one run or closed form is the limit of all of them.
    throw InputError(m.path("reference") + ": a ladder in the case's parameter " +
                     sm.ladder_parameter +
                     " is measured against \"value\" (the limit the theory gives)");
  }
  const bool own_solver_reference =
      sm.reference == sm.solver || (sm.reference == "limit" && sm.solver == "limit");
  if (sm.has_ladder && (sm.axis == LadderAxis::h || sm.axis == LadderAxis::rtol) &&
      sm.reference == "limit") {
    // The limit solver runs the (alpha, beta, gamma) model's N -> infinity, not the scheme's
    // h -> 0 or rtol -> 0.
    throw InputError(m.path("reference") + ": an " + axis_name(sm.axis) +
                     " ladder is measured against \"closed-form\" or a solver name, not "
                     "\"limit\"");
  }
  if (sm.has_ladder && sm.axis == LadderAxis::h && sm.reference == sm.solver) {
    throw InputError(m.path("reference") + ": an h ladder of " + sm.solver +
                     " needs a reference from another solver (or \"closed-form\")");
  }
  if (sm.reference == "value") {
    const auto* values = m.find("reference_values");
    if (!values || !values->is_object() || values->empty()) {
      throw InputError(m.path("reference_values") +
                       ": required with reference \"value\": an object observable: number");
    }
    for (const auto& [key, value] : values->items()) {
      require_study_observable(study, key, m.path("reference_values") + "." + key);
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        throw InputError(m.path("reference_values") + "." + key + ": must be a finite number");
      }
      sm.reference_values[key] = value.get<double>();
    }
    sm.reference_source = m.text("reference_source", "");
    if (sm.reference_source.empty()) {
      throw InputError(m.path("reference_source") +
                       ": required with reference \"value\": where the numbers come from");
    }
  } else if (m.find("reference_values") || m.find("reference_source")) {
    throw InputError(m.path(m.find("reference_values") ? "reference_values" : "reference_source") +
                     ": only with reference \"value\"");
  }
  if (sm.reference == "value") {
    if (m.find("reference_set")) {
      throw InputError(m.path("reference_set") + ": a \"value\" reference runs no solver");
    }
  } else if (sm.reference == "closed-form") {
    // Only here: some cases' facts take quadratures (particle-on-circle's viscous lift-off).
    const Facts model_facts = facts_of(model_case);
    if (!model_facts.lift_off_time(sm.limit_model, sm.constraint_name) &&
        !model_facts.trajectory(sm.limit_model)) {
      throw InputError(m.path("reference") + ": case " + sm.case_name +
                       " has no closed-form lift-off" +
                       (sm.constraint ? " of constraint " + sm.constraint_name : std::string()) +
                       " or trajectory for model '" + sm.limit_model + "'");
    }
  } else if (sm.reference != "limit" || sm.axis == LadderAxis::parameter) {
    // A solver; "limit" too on a parameter ladder (the limit solver at the parameter's limit).
    const Solver* reference_solver = nullptr;
    try {
      reference_solver = &find_solver(sm.reference);
    } catch (const InputError&) {
      throw InputError(m.path("reference") + ": '" + sm.reference +
                       "' is not \"limit\", \"closed-form\" or a solver name (" + solver_names() +
                       ")");
    }
    if (const auto* own = m.find("reference_set")) {
      if (own_solver_reference && sm.axis != LadderAxis::parameter) {
        throw InputError(m.path("reference_set") +
                         ": the model's own solver as its reference runs the model's settings");
      }
      sm.reference_assignments = assignments_of(own, m.path("reference_set"));
      limit_model_of(*reference_solver, sm.reference_assignments, m.path("reference_set"));
    }
  }
  if (sm.axis == LadderAxis::parameter && (own_solver_reference || sm.reference == "limit") &&
      sm.reference != "value" &&
      std::none_of(sm.reference_assignments.begin(), sm.reference_assignments.end(),
                   [&](const Assignment& a) { return a.key == sm.ladder_parameter; })) {
    // The model's solver (or the limit solver) at the parameter's own limit, e.g. alpha = 0:
    // the reference_set must say which value the ladder tends to.
    throw InputError(m.path("reference_set") + ": a ladder in " + sm.ladder_parameter +
                     " against " + sm.reference + " needs the limit value of " +
                     sm.ladder_parameter + " in reference_set (e.g. {\"" + sm.ladder_parameter +
                     "\": 0})");
  }
  if (m.find("reference_set") && sm.reference_assignments.empty() &&
      ((sm.reference == "limit" && sm.axis != LadderAxis::parameter) ||
       sm.reference == "closed-form")) {
    throw InputError(m.path("reference_set") +
                     ": only a solver reference takes settings (the reference is \"" +
                     sm.reference + "\")");
  }
}

// The powers of the logarithms in the error laws of an N ladder's observables ("log_power").
void read_log_powers(Fields& m, StudyModel& sm) {
  const auto* powers = m.find("log_power");
  if (!powers) return;
  if (!powers->is_object()) {
    throw InputError(m.path("log_power") + ": must be an object observable: 1, 2 or 3");
  }
  for (const auto& [key, value] : powers->items()) {
    const std::string where = m.path("log_power") + "." + key;
    if (!sm.expected_order.contains(key)) {
      throw InputError(where + ": needs an expected_order for " + key +
                       " (the law is error ~ N^-order (ln N)^log_power)");
    }
    if (!value.is_number_integer() || value.get<int>() < 1 || value.get<int>() > 3) {
      throw InputError(where + ": must be 1, 2 or 3");
    }
    if (!sm.has_ladder || sm.axis != LadderAxis::N || !(sm.ladder.front() > 1.0)) {
      throw InputError(where + ": only for a model on the study's N ladder with N > 1");
    }
    sm.log_power[key] = value.get<int>();
  }
}

// The rung from which an observable's fits start ("fit_from"): one of the model's rungs, leaving
// at least three rows to fit, and not its coarsest (which would change nothing).
void read_fit_from(Fields& m, const Study& study, StudyModel& sm) {
  const auto* starts = m.find("fit_from");
  if (!starts) return;
  if (!starts->is_object()) {
    throw InputError(m.path("fit_from") + ": must be an object observable: rung");
  }
  for (const auto& [key, value] : starts->items()) {
    const std::string where = m.path("fit_from") + "." + key;
    require_study_observable(study, key, where);
    if (!sm.has_ladder || sm.ladder.size() < 4) {
      throw InputError(where + ": only for a model with a ladder of at least 4 rungs");
    }
    // The accepted rungs: the second coarsest to the third finest.
    std::vector<std::string> accepted;
    std::optional<double> rung;
    for (std::size_t r = 1; r + 3 <= sm.ladder.size(); ++r) {
      accepted.push_back(rung_label(sm.axis, sm.ladder[r], sm.ladder_parameter));
      if (value.is_number() &&
          std::abs(value.get<double>() - sm.ladder[r]) <= 1e-9 * std::abs(sm.ladder[r])) {
        rung = sm.ladder[r];
      }
    }
    if (!rung) {
      throw InputError(where +
                       ": must be one of the model's rungs that leaves at least 3 to "
                       "fit and is not its coarsest: " +
                       join(accepted));
    }
    sm.fit_from[key] = *rung;
  }
}

// The theory's orders and leading coefficients of the model's observables.
void read_expectations(Fields& m, const Study& study, StudyModel& sm) {
  if (const auto* orders = m.find("expected_order")) {
    if (!orders->is_object()) {
      throw InputError(m.path("expected_order") + ": must be an object observable: order");
    }
    for (const auto& [key, value] : orders->items()) {
      require_study_observable(study, key, m.path("expected_order") + "." + key);
      if (!value.is_number() || !(value.get<double>() > 0.0) || value.get<double>() > 10.0) {
        throw InputError(m.path("expected_order") + "." + key + ": must be a number in (0, 10]");
      }
      sm.expected_order[key] = value.get<double>();
    }
    if (!sm.has_ladder && !sm.expected_order.empty()) {
      throw InputError(m.path("expected_order") + ": solver " + sm.solver +
                       " has no N and the model no h or rtol ladder, so there is no order");
    }
  }
  read_log_powers(m, sm);
  read_fit_from(m, study, sm);
  if (const auto* coefficients = m.find("expected_coefficients")) {
    if (!coefficients->is_object()) {
      throw InputError(m.path("expected_coefficients") +
                       ": must be an object observable: [a1, a2, ...]");
    }
    for (const auto& [key, value] : coefficients->items()) {
      const std::string where = m.path("expected_coefficients") + "." + key;
      if (sm.expected_order.find(key) == sm.expected_order.end()) {
        throw InputError(where + ": needs an expected_order for " + key +
                         " (the coefficients are those of its powers)");
      }
      if (!value.is_array() || value.empty() || value.size() > 3) {
        throw InputError(where + ": must be an array of 1 to 3 numbers");
      }
      // null: a term the theory has but does not give the coefficient of (fitted, not judged).
      std::vector<double> list;
      for (const auto& a : value) {
        if (!a.is_null() && (!a.is_number() || !std::isfinite(a.get<double>()))) {
          throw InputError(where + ": must be an array of 1 to 3 finite numbers or null");
        }
        list.push_back(a.is_null() ? std::numeric_limits<double>::quiet_NaN() : a.get<double>());
      }
      if (std::all_of(list.begin(), list.end(), [](double a) { return std::isnan(a); })) {
        throw InputError(where + ": states no coefficient (every entry null)");
      }
      sm.expected_coefficients[key] = list;
    }
  }
  if (const auto* powers = m.find("coefficient_powers")) {
    if (!powers->is_object()) {
      throw InputError(m.path("coefficient_powers") +
                       ": must be an object observable: [p1, p2, ...]");
    }
    for (const auto& [key, value] : powers->items()) {
      const std::string where = m.path("coefficient_powers") + "." + key;
      const auto c = sm.expected_coefficients.find(key);
      if (c == sm.expected_coefficients.end()) {
        throw InputError(where + ": needs expected_coefficients for " + key);
      }
      if (!value.is_array() || value.size() != c->second.size()) {
        throw InputError(where + ": must be an array of " + std::to_string(c->second.size()) +
                         " increasing positive numbers, one per expected coefficient");
      }
      std::vector<double> list;
      for (const auto& a : value) {
        if (!a.is_number() || !(a.get<double>() > (list.empty() ? 0.0 : list.back())) ||
            a.get<double>() > 10.0) {
          throw InputError(where + ": must be an array of " + std::to_string(c->second.size()) +
                           " increasing positive numbers in (0, 10]");
        }
        list.push_back(a.get<double>());
      }
      if (sm.log_power.contains(key)) {
        throw InputError(where + ": not with log_power." + key +
                         " (its terms' powers follow from the logarithm's)");
      }
      if (list.front() != sm.expected_order.at(key)) {
        throw InputError(where + "[0]: " + format_number(list.front()) +
                         " must be the expected order " + format_number(sm.expected_order.at(key)) +
                         " of " + key);
      }
      sm.coefficient_powers[key] = list;
    }
  }
}

// The "tolerances" object of a study or of one of its models, where it has one: rtol, atol and
// tight_factor over the values given, the tight twin's rtol checked. Whether it has one.
bool read_tolerances(Fields& owner, double& rtol, double& atol, double& tight_factor) {
  if (const auto* own = owner.find("tolerances")) {
    Fields t(*own, owner.path("tolerances"));
    rtol = t.number("rtol", rtol, kRtolSpec);
    atol = t.number("atol", atol, kAtolSpec);
    tight_factor = t.number("tight_factor", tight_factor, kTightFactorSpec);
    t.finish();
  }
  require_tight_rtol(rtol, tight_factor, owner.path("tolerances") + ".tight_factor",
                     "rtol / tight_factor");
  return owner.find("tolerances") != nullptr;
}

// study.models[i].
StudyModel read_model(const Study& study, const nlohmann::json& entry, std::size_t i,
                      std::set<std::string>& labels) {
  const std::string path = "study.models[" + std::to_string(i) + "]";
  Fields m(entry, path);
  StudyModel sm;
  sm.label = bounded_label(m.text("label"), m.path("label"));
  if (sm.label.empty() || !labels.insert(sm.label).second) {
    throw InputError(m.path("label") + ": '" + sm.label + "' must be non-empty and unique");
  }
  sm.case_name = m.text("case", study.case_name);
  if (m.find("case") || m.find("params")) {
    try {
      find_case(sm.case_name);
    } catch (const InputError& e) {
      throw InputError(m.path("case") + ": " + e.what());
    }
    sm.case_assignments = assignments_of(m.find("params"), m.path("params"));
  } else {
    sm.case_assignments = study.case_assignments;
  }
  std::unique_ptr<Model> model_case;
  try {
    model_case = make_model(sm.case_name, sm.case_assignments);
  } catch (const InputError& e) {
    throw InputError(m.path("params") + ": " + e.what());
  }
  if (m.find("constraint")) {
    sm.constraint = model_case->constraint_index(m.text("constraint"), m.path("constraint"));
    sm.constraint_name = model_case->constraint_name(*sm.constraint);
  }
  if (m.find("digits")) sm.digits = m.number("digits", std::nullopt, range(1.0, 15.0));
  sm.t_end = study.t_end;
  // The study's tolerances, with those the model names itself.
  sm.rtol = study.rtol;
  sm.atol = study.atol;
  sm.tight_factor = study.tight_factor;
  sm.own_tolerances = read_tolerances(m, sm.rtol, sm.atol, sm.tight_factor);
  if (m.find("t_end")) sm.t_end = m.number("t_end", std::nullopt, range(0.0, 1e9, false));
  if (sm.t_end && !(*sm.t_end > model_case->initial_state().t)) {
    throw InputError(
        m.path("t_end") + ": " + format_number(*sm.t_end) +
        " is not after the case's start t = " + format_number(model_case->initial_state().t));
  }
  sm.solver = m.text("solver");
  const Solver* solver = nullptr;
  try {
    solver = &find_solver(sm.solver);
  } catch (const InputError& e) {
    throw InputError(m.path("solver") + ": " + e.what());
  }
  sm.assignments = assignments_of(m.find("set"), m.path("set"));
  if (const auto* own = m.find("ladder")) read_own_ladder(m, *own, *solver, *model_case, sm);
  for (const auto& a : sm.assignments) {
    // An N ladder sets N itself; an h or rtol ladder at a fixed N takes it from `set`.
    if (a.key == "N" && !sm.has_ladder) {
      throw InputError(m.path("set") + ".N: N comes from the study's ladder (study.N, N_max)");
    }
    if (a.key == "h" && sm.has_ladder && sm.axis == LadderAxis::h) {
      throw InputError(m.path("set") + ".h: h comes from the model's ladder");
    }
    if (sm.axis == LadderAxis::parameter && !sm.ladder_on_case && a.key == sm.ladder_parameter) {
      throw InputError(m.path("set") + "." + a.key + ": " + a.key +
                       " comes from the model's ladder");
    }
  }
  if (sm.ladder_on_case) {
    for (const auto& a : sm.case_assignments) {
      if (a.key == sm.ladder_parameter) {
        throw InputError(m.path("params") + "." + a.key + ": " + a.key +
                         " comes from the model's ladder");
      }
    }
  }
  if (sm.own_tolerances && !solver->takes_tolerances()) {
    throw InputError(m.path("tolerances") + ": solver " + sm.solver +
                     " takes no tolerances (a fixed-step solver runs at its h)");
  }
  const RunSettings settings = settings_of(*solver, sm.assignments, m.path("set"));
  sm.limit_model = solver->limit_model(settings.solver_params, settings.solver_choices);
  read_N_ladder(m, study, *solver, sm);
  read_reference(m, study, *model_case, sm);
  if (const auto N = settings.solver_params.find("N");
      N != settings.solver_params.end() && sm.has_ladder && sm.axis == LadderAxis::h &&
      (sm.reference == "closed-form" || sm.reference == "limit")) {
    sm.fixed_N = N->second;
  }
  read_expectations(m, study, sm);
  sm.coefficient_source = m.text("coefficient_source", "");
  sm.order_source = m.text("order_source", "");
  sm.note = m.text("note", "");
  m.finish();
  return sm;
}

// study.paths: the figure of q(t) paths of some models at some N.
PathsFigure read_paths(const nlohmann::json& paths, const Study& study) {
  Fields c(paths, "study.paths");
  PathsFigure figure;
  const auto& path_labels = c.require("models");
  if (!path_labels.is_array() || path_labels.empty() || path_labels.size() > 8) {
    throw InputError("study.paths.models: a list of 1 to 8 model path_labels");
  }
  for (std::size_t k = 0; k < path_labels.size(); ++k) {
    const std::string where = "study.paths.models[" + std::to_string(k) + "]";
    if (!path_labels[k].is_string()) throw InputError(where + ": a model label (string)");
    const std::string label = path_labels[k].get<std::string>();
    const auto it = std::find_if(study.models.begin(), study.models.end(),
                                 [&](const StudyModel& m) { return m.label == label; });
    if (it == study.models.end() || !it->has_ladder || it->axis != LadderAxis::N) {
      throw InputError(where + ": '" + label + "' is not the label of a model with an N ladder");
    }
    figure.models.push_back(label);
  }
  figure.N = number_list(c.require("N"), "study.paths.N", range(0.0, 1e15, false), 1);
  if (figure.N.size() > 8) throw InputError("study.paths.N: at most 8 values");
  const int dof = make_model(study.case_name, study.case_assignments)->dof();
  const auto coordinate = [&](const char* key, double fallback) {
    const double v = c.number(key, fallback, range(0.0, dof - 1.0));
    if (v != std::floor(v)) {
      throw InputError(std::string("study.paths.") + key + ": a coordinate index, 0 to " +
                       std::to_string(dof - 1));
    }
    return static_cast<int>(v);
  };
  // "x": "t" puts time on the horizontal axis (a path against t).
  const auto* x_time = c.find("x");
  if (x_time && x_time->is_string() && x_time->get<std::string>() != "t") {
    throw InputError("study.paths.x: a coordinate index, 0 to " + std::to_string(dof - 1) +
                     ", or \"t\" (time)");
  }
  figure.x = x_time && x_time->is_string() ? PathsFigure::kTime : coordinate("x", 0.0);
  figure.y = coordinate("y", 1.0);
  c.finish();
  return figure;
}

// study.glance: the README's opening table (GlanceTable).
GlanceTable read_glance(const nlohmann::json& glance, const Study& study) {
  Fields g(glance, "study.glance");
  GlanceTable table;
  table.caption = g.text("caption");
  const auto& labels = g.require("models");
  if (!labels.is_array() || labels.empty() || labels.size() > 40) {
    throw InputError("study.glance.models: a list of 1 to 40 labels of ladder models");
  }
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const std::string where = "study.glance.models[" + std::to_string(k) + "]";
    const auto it =
        std::find_if(study.models.begin(), study.models.end(), [&](const StudyModel& m) {
          return labels[k].is_string() && m.label == labels[k].get<std::string>();
        });
    if (it == study.models.end() || !it->has_ladder) {
      throw InputError(where + ": " + labels[k].dump() + " is not the label of a ladder model");
    }
    if (table.models.empty()) {
      table.axis = it->axis;
      table.parameter = it->ladder_parameter;
    }
    const std::string axis = axis_name(it->axis, it->ladder_parameter);
    const std::string first = axis_name(table.axis, table.parameter);
    if (axis != first) {
      throw InputError(where + ": '" + it->label + "' runs a ladder in " + axis +
                       ", the first in " + first + "; the table's models share one axis");
    }
    table.models.push_back(it->label);
  }
  table.at = number_list(g.require("at"), "study.glance.at", range(0.0, 1e15, false), 1);
  if (table.at.size() > 6) throw InputError("study.glance.at: 1 to 6 rungs");
  const auto& names = g.require("observables");
  if (!names.is_array() || names.empty() || names.size() > 3) {
    throw InputError("study.glance.observables: a list of 1 to 3 of the study's observables (" +
                     join(study.observables) + ")");
  }
  for (std::size_t k = 0; k < names.size(); ++k) {
    const bool measured =
        names[k].is_string() && std::find(study.observables.begin(), study.observables.end(),
                                          names[k].get<std::string>()) != study.observables.end();
    if (!measured) {
      throw InputError("study.glance.observables[" + std::to_string(k) + "]: " + names[k].dump() +
                       " is not one of the study's observables (" + join(study.observables) + ")");
    }
    table.observables.push_back(names[k].get<std::string>());
  }
  g.finish();
  return table;
}

// study.work_precision: the series of a work-precision diagram.
void read_work_precision(const nlohmann::json& wp, Study& study) {
  Fields w(wp, "study.work_precision");
  study.work_precision_case = w.text("case", study.case_name);
  try {
    find_case(study.work_precision_case);
  } catch (const InputError& e) {
    throw InputError(std::string("study.work_precision.case: ") + e.what());
  }
  study.work_precision_case_assignments =
      assignments_of(w.find("params"), "study.work_precision.params");
  std::unique_ptr<Model> wp_model;
  try {
    wp_model = make_model(study.work_precision_case, study.work_precision_case_assignments);
  } catch (const InputError& e) {
    throw InputError(std::string("study.work_precision.params: ") + e.what());
  }
  std::optional<Facts> wp_facts;  // computed when a series needs them
  study.work_precision_atol_ratio =
      w.number("atol_ratio", study.work_precision_atol_ratio, range(1e-6, 1.0));
  study.timing_repeats =
      static_cast<int>(w.number("timing_repeats", study.timing_repeats, range(1.0, 20.0)));
  const auto& series = w.require("series");
  if (!series.is_array() || series.empty()) {
    throw InputError("study.work_precision.series: must be a non-empty array");
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string path = "study.work_precision.series[" + std::to_string(i) + "]";
    Fields s(series[i], path);
    WorkPrecisionSeries ws;
    ws.label = bounded_label(s.text("label"), s.path("label"));
    for (const auto& other : study.work_precision) {
      if (other.label == ws.label || ws.label.empty()) {
        throw InputError(s.path("label") + ": '" + ws.label + "' must be non-empty and unique");
      }
    }
    ws.solver = s.text("solver");
    const Solver* solver = nullptr;
    try {
      solver = &find_solver(ws.solver);
    } catch (const InputError& e) {
      throw InputError(s.path("solver") + ": " + e.what());
    }
    ws.assignments = assignments_of(s.find("set"), s.path("set"));
    ws.limit_model = limit_model_of(*solver, ws.assignments, s.path("set"));
    ws.vary = s.text("vary");
    if (ws.vary == "rtol") {
      ws.values = number_list(s.require("values"), s.path("values"), range(1e-14, 1e-2), 2);
    } else if (ws.vary == "h") {
      bool has_h = false;
      for (const auto& p : solver->parameters()) has_h = has_h || p.name == "h";
      if (!has_h) {
        throw InputError(s.path("vary") + ": solver " + ws.solver + " has no parameter h");
      }
      ws.values = number_list(s.require("values"), s.path("values"), range(0.0, 1.0, false), 2);
    } else {
      throw InputError(s.path("vary") + ": '" + ws.vary + "' is not one of rtol, h");
    }
    ws.reference = s.text("reference", std::string("closed-form"));
    if (ws.reference == "closed-form") {
      if (!wp_facts) wp_facts = facts_of(*wp_model);
      if (!wp_facts->lift_off_time(ws.limit_model)) {
        throw InputError(s.path("reference") + ": case " + study.work_precision_case +
                         " has no closed-form lift-off for model '" + ws.limit_model + "'");
      }
    } else if (ws.reference == "tight") {
      if (ws.vary != "rtol") {
        throw InputError(s.path("reference") + ": \"tight\" needs vary = rtol");
      }
    } else {
      throw InputError(s.path("reference") + ": '" + ws.reference +
                       "' is not one of closed-form, tight");
    }
    ws.note = s.text("note", "");
    s.finish();
    study.work_precision.push_back(std::move(ws));
  }
  w.finish();
}

}  // namespace

Study parse_study(const nlohmann::json& j) {
  Study study;
  Fields top(j, "study");
  study.name = folder_name(top, "study");
  study.description = top.text("description", "");
  study.case_name = known_case_name(top, "study");
  study.case_assignments = assignments_of(top.find("params"), "study.params");
  std::unique_ptr<Model> model;
  try {
    model = make_model(study.case_name, study.case_assignments);
  } catch (const InputError& e) {
    throw InputError(std::string("study.params: ") + e.what());
  }

  read_tolerances(top, study.rtol, study.atol, study.tight_factor);
  study.samples = static_cast<int>(top.number("samples", study.samples, range(11.0, 1e6)));
  study.digits = top.number("digits", study.digits, range(1.0, 15.0));
  study.max_wall_time = top.number("max_wall_time", study.max_wall_time, kMaxWallTimeSpec);
  if (top.find("t_end")) {
    study.t_end = top.number("t_end", std::nullopt, range(0.0, 1e9, false));
  }

  if (top.find("N")) {
    Fields ladder(top.require("N"), "study.N");
    const double from = ladder.number("from", std::nullopt, range(0.0, 1e15, false));
    const double to = ladder.number("to", std::nullopt, range(from, 1e15, false));
    const double per_decade = ladder.number("per_decade", 1.0, range(1.0, 10.0));
    if (per_decade != std::floor(per_decade)) {
      throw InputError("study.N.per_decade: must be a whole number in [1, 10]");
    }
    ladder.finish();
    study.ladder = geometric_ladder(from, to, static_cast<int>(per_decade));
    if (study.ladder.size() < 3 || study.ladder.size() > 200) {
      throw InputError("study.N: the ladder has " + std::to_string(study.ladder.size()) +
                       " points; it needs between 3 and 200");
    }
  }

  if (const auto* obs = top.find("observables")) {
    if (!obs->is_array() || obs->empty()) {
      throw InputError("study.observables: must be a non-empty array; accepted names: " +
                       join(observable_names()));
    }
    for (std::size_t i = 0; i < obs->size(); ++i) {
      const auto& o = (*obs)[i];
      if (!o.is_string() || find_observable(o.get<std::string>()) == nullptr) {
        throw InputError("study.observables[" + std::to_string(i) + "]: " + o.dump() +
                         " is not one of " + join(observable_names()));
      }
      study.observables.push_back(o.get<std::string>());
    }
  } else {
    study.observables = default_observables();
  }

  const auto& models = top.require("models");
  if (!models.is_array() || models.empty()) {
    throw InputError("study.models: must be a non-empty array of models");
  }
  std::set<std::string> labels;
  for (std::size_t i = 0; i < models.size(); ++i) {
    study.models.push_back(read_model(study, models[i], i, labels));
  }

  if (const auto* paths = top.find("paths")) {
    study.paths = read_paths(*paths, study);
  }

  if (const auto* collapse = top.find("collapse")) {
    Fields c(*collapse, "study.collapse");
    CollapseFigure figure;
    figure.model = c.text("model");
    const auto it = std::find_if(study.models.begin(), study.models.end(),
                                 [&](const StudyModel& m) { return m.label == figure.model; });
    if (it == study.models.end() || !it->has_ladder || it->axis != LadderAxis::N) {
      throw InputError("study.collapse.model: '" + figure.model +
                       "' is not the label of a model with an N ladder");
    }
    figure.N = number_list(c.require("N"), "study.collapse.N", range(0.0, 1e15, false), 1);
    if (figure.N.size() > 8) throw InputError("study.collapse.N: at most 8 values");
    figure.window = c.number("window", figure.window, range(0.0, 1e3, false));
    c.finish();
    study.collapse = figure;
  }

  if (const auto* wp = top.find("work_precision")) {
    read_work_precision(*wp, study);
  }
  if (const auto* glance = top.find("glance")) study.glance = read_glance(*glance, study);
  top.finish();
  return study;
}

Study parse_study_text(std::string_view text, const std::string& origin) {
  return parse_study(parse_json_text(text, origin, "--study"));
}

Study load_study(const std::string& path) {
  return parse_study(parse_json_text(read_input_file(path, "--study"), path, "--study"));
}

}  // namespace crbench
