// Solver `realization`: the free system in which the constraint is realized by the (α,β,γ)N
// Kelvin–Voigt medium of Deryabin & Kozlov 1995 (1.5)–(1.8) (docs/theory.md §2).
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

class RealizationSolver final : public Solver {
 public:
  std::string name() const override { return "realization"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::vector<ChoiceSpec> choices() const override;
  bool handles_kinematic_constraints() const override { return true; }
  // One-sided kinematic rows by one-sided friction (α = 0).
  bool handles_unilateral_kinematic_constraints() const override { return true; }
  bool handles_bilateral_constraints() const override { return true; }
  // Coulomb's bound on the viscous friction of conditional rows (α = 0): docs/theory.md §2.
  bool handles_coulomb_friction() const override { return true; }
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const override;
  std::string limit_model(const ParamValues& params, const ChoiceValues& choices) const override;
  std::vector<std::string> extra_columns(const Model& model,
                                         const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
