// Solver `event-driven`: the ideal classical model (DESIGN.md §2) integrated phase by phase.
#pragma once

#include "solvers/solver.hpp"

namespace crbench {

class EventDrivenSolver final : public Solver {
 public:
  std::string name() const override { return "event-driven"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::string limit_model(const ParamValues&, const ChoiceValues&) const override {
    return "classical";
  }
  RunRecord run(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
