#include <algorithm>

#include "solvers/event_driven.hpp"
#include "solvers/limit.hpp"
#include "solvers/moreau_jean.hpp"
#include "solvers/realization.hpp"
#include "solvers/solver.hpp"

namespace crbench {

const std::vector<std::unique_ptr<Solver>>& solver_registry() {
  static const std::vector<std::unique_ptr<Solver>> solvers = [] {
    std::vector<std::unique_ptr<Solver>> s;
    s.push_back(std::make_unique<EventDrivenSolver>());
    s.push_back(std::make_unique<MoreauJeanSolver>());
    s.push_back(std::make_unique<RealizationSolver>());
    s.push_back(std::make_unique<LimitSolver>());
    return s;
  }();
  return solvers;
}

void configure_solver(const Solver& solver, const std::vector<Assignment>& assignments,
                      RunSettings& settings) {
  const std::string owner = "solver " + solver.name();
  const auto choice_specs = solver.choices();
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
    if (std::find(spec->options.begin(), spec->options.end(), a.value) == spec->options.end()) {
      std::string accepted;
      for (const auto& o : spec->options) accepted += (accepted.empty() ? "" : ", ") + o;
      throw InputError(owner + ": " + a.key + " '" + a.value + "' is not one of: " + accepted);
    }
    settings.solver_choices[a.key] = a.value;
  }
  settings.solver_params = resolve_params(solver.parameters(), numeric, owner);
  solver.finalize(settings.solver_params, settings.solver_choices, assigned);
}

const Solver& find_solver(std::string_view name) {
  std::string known;
  for (const auto& s : solver_registry()) {
    if (s->name() == name) return *s;
    known += (known.empty() ? "" : ", ") + s->name();
  }
  throw InputError("--solver: unknown solver '" + std::string(name) + "'; known solvers: " + known);
}

}  // namespace crbench
