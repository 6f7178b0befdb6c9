// The (α,β,γ) limit model (Deryabin & Kozlov 1995, Theorem 1 and (1.10)). On Σ the system moves by
// the constrained equations (1.4), like the classical model; along each contact
//   α z'' + β z' + γ z = −λ(t),  z = z' = 0 at the start of the contact,
// and it leaves Σ at the first simple zero τ of z if λ(τ) < 0. Special cases: α = β = 0 gives
// z = −λ/γ, the classical model; α = γ = 0 gives z = −∫λ/β, Theorem 2's first zero of ∫λ; with the
// obstacle (a reaction that only pushes) the limit is classical (Deryabin & Kozlov 1995, end of
// §6). Re-contact: absolutely inelastic for the viscous limit (Deryabin & Kozlov 1995, end of §5),
// Newton's law otherwise; the Kozlov impact preset (stiffness κN, damping 2k√N, Kozlov 1992 §5) has
// the limit (0, 0, κ) with restitution e = exp(−πk/ω), ω = √(κ − k²) (Kozlov 1992 (12)), and e = 0
// when k² ≥ κ.
#include "solvers/limit.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "solvers/event_driven.hpp"
#include "solvers/kinematic_limit.hpp"
#include "solvers/model_parameters.hpp"

namespace crbench {

std::string LimitSolver::description() const {
  return "The (alpha,beta,gamma) limit model of Deryabin & Kozlov 1995 Theorem 1: motion on the "
         "constraint with alpha z'' + beta z' + gamma z = -lambda along each contact, lift-off at "
         "the first simple zero of z where lambda < 0; reports whether the theorem applies and why "
         "not.";
}

std::vector<ParamSpec> LimitSolver::parameters() const {
  std::vector<ParamSpec> params = EventDrivenSolver().parameters();
  for (auto& p : params) {
    if (p.name == "restitution") {
      p.description =
          "Newton restitution at re-contact (Deryabin & Kozlov 1995 end of section 5: 0 for the "
          "viscous limit; Kozlov 1992 (12): exp(-pi k/omega) for kozlov-impact)";
      p.default_note = "0 for the viscous limit, exp(-pi k/omega) for kozlov-impact, 1 otherwise";
    }
  }
  const std::vector<ParamSpec> own = model_coefficient_params();
  params.insert(params.begin(), own.begin(), own.end());
  return params;
}

std::vector<ChoiceSpec> LimitSolver::choices() const {
  return model_choices(
      "(alpha,beta,gamma) = (0,1,0), (0,0,1), or the kozlov-impact limit (0,0,kappa) with "
      "restitution exp(-pi k/omega); --alpha/--beta/--gamma override it",
      "obstacle: the reaction only pushes, and the limit is classical");
}

void LimitSolver::finalize(ParamValues& params, ChoiceValues& choices,
                           const std::vector<std::string>& assigned) const {
  const std::string preset = choices.at("preset");
  double restitution = 1.0;
  if (preset == "kozlov-impact") {
    // The N → ∞ limit of stiffness κN with damping 2k√N is (0, 0, κ) with Newton's law at
    // e = exp(−πk/ω), ω = √(κ − k²) (Kozlov 1992 (12)); e = 0 when k² ≥ κ.
    const double kappa = params.at("kappa"), k = params.at("k");
    restitution = k * k < kappa ? std::exp(-std::numbers::pi * k / std::sqrt(kappa - k * k)) : 0.0;
    apply_model_preset(params, choices, assigned, "solver limit", 0.0, 0.0, kappa);
  } else {
    apply_model_preset(params, choices, assigned, "solver limit", 0.0,
                       preset == "viscous" ? 1.0 : 0.0, preset == "penalty" ? 1.0 : 0.0);
  }
  if (std::find(assigned.begin(), assigned.end(), "restitution") == assigned.end()) {
    // Re-contact in the viscous limit is absolutely inelastic (Deryabin & Kozlov 1995, end of §5).
    const bool viscous = params.at("alpha") == 0.0 && params.at("gamma") == 0.0;
    params["restitution"] = viscous ? 0.0 : restitution;
  }
}

std::string LimitSolver::limit_model(const ParamValues& params, const ChoiceValues& choices) const {
  return model_limit_name(params, choices);
}

std::vector<std::string> LimitSolver::extra_columns(const Model& model, const RunSettings&) const {
  std::vector<std::string> names;
  // λ of the μ = β/α family, the limit of the realization's N g (its Ng<r> columns).
  for (int r = 0; r < model.kinematic_count(); ++r) names.push_back("Ng" + std::to_string(r));
  if (model.kinematic_count() > 0) return names;
  for (int k = 0; k < model.constraint_count(); ++k) {
    std::string column = "z";  // appended, not "z" + ...: GCC 12 flags that with -Wrestrict
    column += std::to_string(k);
    names.push_back(column);
  }
  return names;
}

RunRecord LimitSolver::run(const Model& model, const RunSettings& settings) const {
  const ParamValues& p = settings.solver_params;
  if (model.kinematic_count() > 0) {
    check_kinematic_model(model, settings, name());
    RunRecord record;
    record.case_name = model.info().name;
    record.solver = name();
    record.params = model.params();
    record.solver_params = p;
    record.solver_params.erase("restitution");  // no impacts without unilateral constraints
    record.solver_choices = settings.solver_choices;
    run_kinematic_limit(model, settings, p.at("alpha"), p.at("beta"), record);
    return record;
  }
  const LimitCoefficients c{.alpha = p.at("alpha"), .beta = p.at("beta"), .gamma = p.at("gamma")};
  // The obstacle's limit is classical; so is α = β = 0 (z = −λ/γ vanishes with λ). The record
  // still carries the theorem's diagnostics in both cases.
  const bool classical =
      settings.solver_choices.at("interaction") == "obstacle" || (c.alpha == 0.0 && c.beta == 0.0);
  return run_contact_dynamics(model, settings, name(),
                              classical ? LimitCoefficients{0.0, 0.0, 1.0} : c);
}

}  // namespace crbench
