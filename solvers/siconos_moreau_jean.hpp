// Solver `siconos-moreau-jean`: the case run by the Siconos kernel (Acary & Brogliato 2008;
// Debian's libsiconos-kernel-dev 4.4): a LagrangianDS whose mass matrix, forces and force
// Jacobians are the case's (its AD), one LagrangianScleronomousR per unilateral constraint with
// h = f_k(q) and ∇f_k (a LagrangianRheonomousR with ḣ = ∂f_k/∂t where f depends on t), Newton's
// impact law (NewtonImpactNSL), MoreauJeanOSI(θ) in a TimeStepping simulation with an LCP at each
// step; with Coulomb friction each contact an interaction of dimension 2 with
// NewtonImpactFrictionNSL and a FrictionContact problem at each step. Built with the CMake option
// CRBENCH_SICONOS (on when the kernel is found).
#pragma once

#include "crbench/solvers/solver.hpp"

namespace crbench {

class SiconosMoreauJeanSolver final : public Solver {
 public:
  std::string name() const override { return "siconos-moreau-jean"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  bool takes_tolerances() const override { return false; }
  std::string limit_model(const ParamValues&, const ChoiceValues&) const override {
    return "classical";
  }
  // Bilateral constraints as EqualityConditionNSL rows of an MLCP, from data that satisfy them
  // (Kozlov 1992 condition (10)).
  bool handles_bilateral_constraints() const override { return true; }
  // Coulomb rows as the tangential rows of NewtonImpactFrictionNSL interactions and a
  // FrictionContact problem, one per contact (refusal() says which cases).
  bool handles_coulomb_friction() const override { return true; }
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;

 private:
  std::optional<std::string> coulomb_refusal(const Model& model) const;
};

}  // namespace crbench
