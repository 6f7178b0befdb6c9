// Solver `moreau-jean`: the ideal model as a measure differential equation (Kugushev & Sorokina
// 2002; Berezinskaya, Sorokina & Kugushev 2003), time-stepped in the way of Moreau and Jean
// (docs/theory.md §2).
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

class MoreauJeanSolver final : public Solver {
 public:
  std::string name() const override { return "moreau-jean"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::vector<ChoiceSpec> choices() const override;
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const override;
  bool takes_tolerances() const override { return false; }
  std::string limit_model(const ParamValues&, const ChoiceValues&) const override {
    return "classical";
  }
  // Kinematic rows enter the step's impulse problem at the velocity level (two-sided as
  // equalities, one-sided as complementarity rows).
  bool handles_kinematic_constraints() const override { return true; }
  bool handles_unilateral_kinematic_constraints() const override { return true; }
  // Coulomb rows enter the step's impulses as the tangential rows of a frictional contact problem
  // (Siconos numerics' fc2d), one per contact.
  bool handles_coulomb_friction() const override { return true; }
  // A Coulomb case whose contacts do not each pair with one Coulomb row (coulomb_pairing_refusal).
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
