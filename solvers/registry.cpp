#include "solvers/event_driven.hpp"
#include "solvers/moreau_jean.hpp"
#include "solvers/solver.hpp"

namespace crbench {

const std::vector<std::unique_ptr<Solver>>& solver_registry() {
  static const std::vector<std::unique_ptr<Solver>> solvers = [] {
    std::vector<std::unique_ptr<Solver>> s;
    s.push_back(std::make_unique<EventDrivenSolver>());
    s.push_back(std::make_unique<MoreauJeanSolver>());
    return s;
  }();
  return solvers;
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
