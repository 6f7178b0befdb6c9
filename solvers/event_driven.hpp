// Solver `event-driven`: the ideal classical model (docs/theory.md §2) integrated phase by phase.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "crbench/solvers/solver.hpp"

namespace crbench {

// Coefficients of the (α,β,γ) limit model of Deryabin & Kozlov 1995 (1.10).
struct LimitCoefficients {
  double alpha = 0.0;
  double beta = 0.0;
  double gamma = 0.0;
  // The constraints the model realizes (one flag each; empty: all). The others are ideal in the
  // limit as in the realization: they leave where λ reaches 0 and take Newton's law with
  // `ideal_restitution` at impacts.
  std::vector<char> realized = {};
  double ideal_restitution = 0.0;
  bool realizes(int k) const {
    return realized.empty() || realized[static_cast<std::size_t>(k)] != 0;
  }
  // Each constraint's scale s of (α, β, γ) (ContactLaw; empty: all 1): s(α z'' + β z' + γ z) = −λ.
  std::vector<double> scale = {};
  double scale_of(int k) const { return scale.empty() ? 1.0 : scale[static_cast<std::size_t>(k)]; }
};

// Motion with unilateral constraints, phase by phase: the classical model, or, with `limit`
// (α or β > 0), the limit model of Deryabin & Kozlov 1995 Theorem 1, which moves on Σ by the same
// equations and leaves at the first simple zero of z where λ < 0. Shared by `event-driven` and
// `limit`.
// What the limit of a realized bilateral constraint changes in the classical motion
// (solvers/limit.cpp): the start, projected onto f = 0, and an extra generalized force (the
// Rubin–Ungar potential's −∂U/∂q).
struct HolonomicExtras {
  std::optional<State> start;
  std::function<Eigen::VectorXd(const State&)> extra_force;
};

RunRecord run_contact_dynamics(const Model& model, const RunSettings& settings,
                               const std::string& solver_name,
                               const std::optional<LimitCoefficients>& limit,
                               const HolonomicExtras& extras = {});

// Why the ideal model cannot start from the case's initial data, if it cannot: a bilateral
// constraint f = 0 needs f(q0) = 0 and ∇f·q̇0 + ∂f/∂t = 0 (Kozlov 1992 condition (10)).
std::optional<std::string> bilateral_start_refusal(const Model& model, double distance_tol,
                                                   double velocity_tol);

// Why the ideal model cannot start from the case's initial data because a one-sided kinematic
// constraint is violated there (g = a q̇ + b < −velocity_tol), if it cannot.
std::optional<std::string> kinematic_start_refusal(const Model& model, double velocity_tol);

// The smooth phases' integrator of event-driven and limit: DOP853 (order 8 with a dense output of
// order 7; solvers/dop853.hpp), dopri5 (order 5 with a dense output of order 4, Odeint's numbers
// bit for bit; solvers/dopri5.hpp) or Boost.Odeint's own dopri5 (solvers/dense_stepper.hpp).
enum class PhaseIntegrator { dopri5, dop853, odeint_dopri5 };
// `why` says why the solver's default is the one it is; "auto" (in `options`) is DOP853 where
// the limit model's z-equation has an added mass (α > 0) and dopri5 elsewhere.
ChoiceSpec phase_integrator_choice(std::vector<std::string> options,
                                   const std::string& default_value, const std::string& why);

class EventDrivenSolver final : public Solver {
 public:
  std::string name() const override { return "event-driven"; }
  std::string description() const override;
  std::vector<ParamSpec> parameters() const override;
  std::vector<ChoiceSpec> choices() const override;
  void finalize(ParamValues& params, ChoiceValues& choices,
                const std::vector<std::string>& assigned) const override;
  std::string limit_model(const ParamValues&, const ChoiceValues&) const override {
    return "classical";
  }
  // Kinematic constraints enter as ideal (d'Alembert–Lagrange) reactions aᵀν: nonholonomic
  // motion (solvers/dynamics.cpp).
  bool handles_kinematic_constraints() const override { return true; }
  // One-sided kinematic constraints enter while active (kinematic_contact to kinematic_release).
  bool handles_unilateral_kinematic_constraints() const override { return true; }
  // Bilateral constraints are always in the active set, their multipliers of either sign.
  bool handles_bilateral_constraints() const override { return true; }
  bool handles_coulomb_friction() const override { return true; }
  std::optional<std::string> refusal(const Model& model,
                                     const RunSettings& settings) const override;

 protected:
  RunRecord solve(const Model& model, const RunSettings& settings) const override;
};

}  // namespace crbench
