#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "crbench/cases/sparse_terms.hpp"
#include "crbench/solvers/event_driven.hpp"
#include "crbench/solvers/limit.hpp"
#include "crbench/solvers/moreau_jean.hpp"
#include "crbench/solvers/realization.hpp"
#include "crbench/solvers/solver.hpp"
#ifdef CRBENCH_HAVE_BULLET
#include "crbench/solvers/bullet_solver.hpp"
#endif
#ifdef CRBENCH_HAVE_MUJOCO
#include "crbench/solvers/mujoco_solver.hpp"
#endif
#ifdef CRBENCH_HAVE_ODE
#include "crbench/solvers/ode_solver.hpp"
#endif
#ifdef CRBENCH_HAVE_SICONOS
#include "crbench/solvers/siconos_event_driven.hpp"
#include "crbench/solvers/siconos_moreau_jean.hpp"
#endif

namespace crbench {

const std::vector<std::unique_ptr<Solver>>& solver_registry() {
  static const std::vector<std::unique_ptr<Solver>> solvers = [] {
    std::vector<std::unique_ptr<Solver>> s;
    s.push_back(std::make_unique<EventDrivenSolver>());
    s.push_back(std::make_unique<MoreauJeanSolver>());
    s.push_back(std::make_unique<RealizationSolver>());
    s.push_back(std::make_unique<LimitSolver>());
#ifdef CRBENCH_HAVE_SICONOS
    s.push_back(std::make_unique<SiconosEventDrivenSolver>());
    s.push_back(std::make_unique<SiconosMoreauJeanSolver>());
#endif
#ifdef CRBENCH_HAVE_MUJOCO
    s.push_back(std::make_unique<MujocoSolver>());
#endif
#ifdef CRBENCH_HAVE_ODE
    s.push_back(std::make_unique<OdeSolver>());
#endif
#ifdef CRBENCH_HAVE_BULLET
    s.push_back(std::make_unique<BulletSolver>());
#endif
    return s;
  }();
  return solvers;
}

void configure_solver(const Solver& solver, const std::vector<Assignment>& user,
                      RunSettings& settings, const CaseInfo* case_info) {
  const std::string owner = "solver " + solver.name();
  const auto& choice_specs = solver.choice_specs();
  const auto& param_specs = solver.parameter_specs();
  std::vector<Assignment> assignments;
  std::map<std::string, std::string> sources;
  if (case_info) {
    for (const auto& c : case_info->solver_settings) {
      if (c.solver != solver.name()) continue;
      const bool overridden = std::any_of(user.begin(), user.end(),
                                          [&](const Assignment& a) { return a.key == c.name; });
      if (overridden) continue;
      assignments.push_back({c.name, c.value});
      sources[c.name] = "case";
    }
  }
  for (const auto& a : user) {
    assignments.push_back(a);
    sources[a.key] = "user";
  }
  std::vector<Assignment> numeric;
  std::vector<std::string> assigned;
  settings.solver_choices.clear();
  for (const auto& c : choice_specs) settings.solver_choices[c.name] = c.default_value;
  for (const auto& a : assignments) {
    assigned.push_back(a.key);
    const auto spec = std::find_if(choice_specs.begin(), choice_specs.end(),
                                   [&](const ChoiceSpec& c) { return c.name == a.key; });
    if (spec == choice_specs.end()) {
      numeric.push_back(a);
      continue;
    }
    if (spec->open_form.empty() &&
        std::find(spec->options.begin(), spec->options.end(), a.value) == spec->options.end()) {
      std::string accepted;
      for (const auto& o : spec->options) accepted += (accepted.empty() ? "" : ", ") + o;
      throw InputError(owner + ": " + a.key + " '" + a.value + "' is not one of: " + accepted);
    }
    settings.solver_choices[a.key] = a.value;
  }
  settings.solver_params = resolve_params(param_specs, numeric, owner);
  solver.finalize(settings.solver_params, settings.solver_choices, assigned);
  for (const auto& p : param_specs) {
    const auto it = settings.solver_params.find(p.name);
    if (p.omitted_at_default && it != settings.solver_params.end() &&
        it->second == p.default_value) {
      settings.solver_params.erase(it);
    }
  }
  for (const auto& c : choice_specs) {
    const auto it = settings.solver_choices.find(c.name);
    if (c.omitted_at_default && it != settings.solver_choices.end() &&
        it->second == c.default_value) {
      settings.solver_choices.erase(it);
    }
  }
  settings.parameter_sources.clear();
  const auto source_of = [&](const std::string& name, const std::string& note) {
    const auto it = sources.find(name);
    if (it != sources.end()) return it->second;
    return note.empty() ? std::string("default") : "default (" + note + ")";
  };
  for (const auto& p : param_specs) {
    if (settings.solver_params.count(p.name)) {
      settings.parameter_sources[p.name] = source_of(p.name, p.default_note);
    }
  }
  for (const auto& c : choice_specs) {
    // A choice finalize removed (one that plays no part, such as realize with every constraint
    // realized) has no source either.
    if (settings.solver_choices.count(c.name)) {
      settings.parameter_sources[c.name] = source_of(c.name, "");
    }
  }
}

const std::vector<ParamSpec>& Solver::parameter_specs() const {
  std::call_once(specs_built_, [this]() {
    parameter_specs_ = parameters();
    choice_specs_ = choices();
  });
  return parameter_specs_;
}

const std::vector<ChoiceSpec>& Solver::choice_specs() const {
  parameter_specs();
  return choice_specs_;
}

double Solver::parameter_or_default(const RunSettings& settings, const std::string& name) const {
  if (const auto it = settings.solver_params.find(name); it != settings.solver_params.end()) {
    return it->second;
  }
  for (const ParamSpec& p : parameter_specs()) {
    if (p.name == name) return p.default_value;
  }
  throw std::logic_error("solver " + this->name() + " has no parameter " + name);
}

RunRecord Solver::run(const Model& model, const RunSettings& settings) const {
  const std::string owner = "solver " + name();
  const double t0 = model.initial_state().t;
  if (!std::isfinite(settings.t_end) || !(settings.t_end > t0)) {
    throw InputError(owner + ": t_end = " + format_number(settings.t_end) +
                     " must be a finite time after the initial time " + format_number(t0) +
                     " (RunSettings has no horizon of its own; the case's is Model::horizon())");
  }
  check_in_range(kRtolSpec, settings.rtol, owner);
  check_in_range(kAtolSpec, settings.atol, owner);
  // Before anything of the solver's own: a solver would otherwise ignore the constraints it does
  // not compute, or hold the rows whose Coulomb friction it lacks.
  require_support(*this, model);
  // Infinite: no bound (the default).
  if (settings.max_wall_time != std::numeric_limits<double>::infinity()) {
    check_in_range(kMaxWallTimeSpec, settings.max_wall_time, owner);
  }
  for (std::size_t i = 0; i < settings.output_times.size(); ++i) {
    const double t = settings.output_times[i];
    if (!(t >= t0 && t <= settings.t_end) || (i > 0 && t < settings.output_times[i - 1])) {
      throw InputError(owner + ": output_times[" + std::to_string(i) + "] = " + format_number(t) +
                       " must lie in [" + format_number(t0) + ", " + format_number(settings.t_end) +
                       "] and not before the previous one");
    }
  }
  if (settings.solver_params.empty() && settings.solver_choices.empty()) {
    RunSettings configured = settings;
    configure_solver(*this, {}, configured, &model.info());
    return solve(model, configured);
  }
  const auto& param_specs = parameter_specs();
  for (const auto& entry : settings.solver_params) {
    const std::string& key = entry.first;  // a name, not a binding: lambdas capture it (clang 14)
    const double value = entry.second;
    const auto spec = std::find_if(param_specs.begin(), param_specs.end(),
                                   [&](const ParamSpec& p) { return p.name == key; });
    if (spec == param_specs.end()) {
      throw InputError(owner + ": solver_params has '" + key + "', not one of its parameters");
    }
    check_in_range(*spec, value, owner);
  }
  const auto& choice_specs = this->choice_specs();
  std::vector<Assignment> chosen;
  for (const auto& entry : settings.solver_choices) {
    const std::string& key = entry.first;
    const std::string& value = entry.second;
    const auto spec = std::find_if(choice_specs.begin(), choice_specs.end(),
                                   [&](const ChoiceSpec& c) { return c.name == key; });
    if (spec == choice_specs.end()) {
      throw InputError(owner + ": solver_choices has '" + key + "', not one of its choices");
    }
    const bool recorded =
        std::find(spec->recorded.begin(), spec->recorded.end(), value) != spec->recorded.end();
    // configure_solver below rejects any other value not among the options.
    if (!recorded) chosen.push_back({key, value});
  }
  // What configure_solver gives with the same choices and the same case settings is what this
  // configuration needs.
  std::string configuration;
  for (const auto& c : model.info().solver_settings) {
    if (c.solver == name()) configuration += c.name + '=' + c.value + '\n';
  }
  configuration += '|';
  for (const auto& a : chosen) configuration += a.key + '=' + a.value + '\n';
  // The map's entries are never erased, and an insertion moves none: the pointer stays valid.
  const RequiredNames* found = nullptr;
  {
    const std::lock_guard<std::mutex> lock(required_names_mutex_);
    const auto it = required_names_.find(configuration);
    if (it != required_names_.end()) found = &it->second;
  }
  if (!found) {
    RunSettings needed;
    configure_solver(*this, chosen, needed, &model.info());
    RequiredNames names;
    for (const auto& entry : needed.solver_params) names.params.push_back(entry.first);
    for (const auto& entry : needed.solver_choices) names.choices.push_back(entry.first);
    const std::lock_guard<std::mutex> lock(required_names_mutex_);
    found = &required_names_.emplace(configuration, std::move(names)).first->second;
  }
  const RequiredNames& required = *found;
  for (const auto& key : required.params) {
    if (!settings.solver_params.count(key)) {
      throw InputError(owner + ": solver_params has no '" + key +
                       "' (configure_solver fills every parameter with its default)");
    }
  }
  for (const auto& key : required.choices) {
    if (!settings.solver_choices.count(key)) {
      throw InputError(owner + ": solver_choices has no '" + key +
                       "' (configure_solver fills every choice with its default)");
    }
  }
  return solve(model, settings);
}

bool constraints_depend_on_time(const Model& model, double t_end) {
  if (model.constraint_count() == 0) return false;
  State x = model.initial_state();
  const double t0 = x.t, span = t_end - t0;
  Point p;
  SparseTerms terms;  // a chain's O(n) form, where the dense Point would be O(n²)
  for (const double fraction : {0.0, 0.29, 0.53, 0.87}) {
    x.t = t0 + fraction * span;
    if (model.sparse_terms(x, terms)) {
      if (terms.f_t.lpNorm<Eigen::Infinity>() > 0.0) return true;
      continue;
    }
    model.evaluate(x, model.modes_at(x), p);
    if (p.f_t.lpNorm<Eigen::Infinity>() > 0.0) return true;
  }
  return false;
}

std::optional<std::string> non_finite_start(const Model& model, const State& x) {
  if (!x.q.allFinite() || !x.v.allFinite()) return "a non-finite initial state";
  if (SparseTerms terms; model.sparse_terms(x, terms)) {
    const bool J_finite = std::all_of(terms.J.valuePtr(), terms.J.valuePtr() + terms.J.nonZeros(),
                                      [](double value) { return std::isfinite(value); });
    if (!terms.mass.allFinite() || !terms.f.allFinite() || !J_finite || !terms.force.allFinite()) {
      return "the case gives a non-finite metric, constraint value, gradient or force at the "
             "start";
    }
    return std::nullopt;
  }
  Point p;
  model.evaluate(x, model.modes_at(x), p);
  if (!p.A.allFinite() || !p.f.allFinite() || !p.J.allFinite() || !p.free_force().allFinite()) {
    return "the case gives a non-finite metric, constraint value, gradient or force at the start";
  }
  return std::nullopt;
}

RunRecord start_record(const Model& model, const std::string& solver, const RunSettings& settings) {
  RunRecord record;
  record.case_name = model.info().name;
  for (int i = 0; i < model.dof(); ++i) {
    record.coordinates.push_back({model.coordinate_name(i), model.coordinate_unit(i)});
  }
  for (int k = 0; k < model.constraint_count(); ++k) {
    record.constraint_units.push_back(model.constraint_unit(k));
    record.constraint_names.push_back(model.constraint_name(k));
  }
  record.solver = solver;
  record.params = model.params();
  record.solver_params = settings.solver_params;
  record.solver_choices = settings.solver_choices;
  return record;
}

void finish_record(RunRecord& record, const Model& model,
                   std::chrono::steady_clock::time_point started, double output_seconds) {
  record.output_time_s = output_seconds;
  record.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
      output_seconds;
  finish_contact_episodes(record, model.initial_state().t);
}

void end_before_start(RunRecord& record, Status status, std::string reason, const State& x,
                      const Model& model, std::chrono::steady_clock::time_point started) {
  record.status = status;
  record.reason = std::move(reason);
  record.final_state = x;
  finish_record(record, model, started, 0.0);
}

std::optional<std::string> unsupported_part(const Solver& solver, const CaseInfo& info) {
  // A solver that computes Coulomb friction but no other kinematic constraint (an engine's
  // contact friction) takes the Coulomb rows alone.
  const auto coulomb = static_cast<int>(info.coulomb_rows.size());
  const bool coulomb_alone = info.kinematic == coulomb && solver.handles_coulomb_friction();
  if (info.kinematic > 0 && !solver.handles_kinematic_constraints() && !coulomb_alone) {
    return "kinematic constraints";
  }
  if (info.unilateral_kinematic > 0 && !solver.handles_unilateral_kinematic_constraints()) {
    return "one-sided kinematic constraints";
  }
  if (info.bilateral > 0 && !solver.handles_bilateral_constraints()) {
    return "bilateral constraints";
  }
  if (!info.coulomb_rows.empty() && !solver.handles_coulomb_friction()) {
    return "Coulomb friction";
  }
  return std::nullopt;
}

void require_support(const Solver& solver, const Model& model) {
  const auto part = unsupported_part(solver, model.info());
  if (!part) return;
  const int count =
      *part == "kinematic constraints"             ? model.kinematic_count()
      : *part == "one-sided kinematic constraints" ? model.unilateral_kinematic_count()
      : *part == "Coulomb friction" ? static_cast<int>(model.info().coulomb_rows.size())
                                    : model.bilateral_count();
  throw InputError("--solver: " + solver.name() + " does not compute " + *part + " (case " +
                   model.info().name + " has " + std::to_string(count) +
                   (*part == "Coulomb friction" ? " rows with it" : "") +
                   "); event-driven computes " + "their ideal motion");
}

namespace {
std::atomic<bool> interrupt_flag{false};
}  // namespace

void request_interrupt(bool on) { interrupt_flag.store(on, std::memory_order_relaxed); }
bool interrupt_requested() { return interrupt_flag.load(std::memory_order_relaxed); }

const Solver& find_solver(std::string_view name) {
  std::string known;
  for (const auto& s : solver_registry()) {
    if (s->name() == name) return *s;
    known += (known.empty() ? "" : ", ") + s->name();
  }
  throw InputError("--solver: unknown solver '" + std::string(name) + "'; known solvers: " + known);
}

}  // namespace crbench
