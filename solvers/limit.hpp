// Solver `limit`: the (α,β,γ) limit model of Deryabin & Kozlov 1995 Theorem 1, the N → ∞ prediction
// for the realization solver with the same --preset/--alpha/--beta/--gamma/--interaction.
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

class LimitSolver final : public Solver {
 public:
  std::string name() const override { return "limit"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::vector<ChoiceSpec> choices() const override;
  bool handles_kinematic_constraints() const override { return true; }
  // The limit of the one-sided friction (α = 0) is the ideal one-sided motion (event-driven's).
  bool handles_unilateral_kinematic_constraints() const override { return true; }
  bool handles_bilateral_constraints() const override { return true; }
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const override;
  std::string limit_model(const ParamValues& params, const ChoiceValues& choices) const override;
  std::vector<std::string> extra_columns(const Model& model,
                                         const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
