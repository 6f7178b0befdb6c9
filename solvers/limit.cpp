// The (α,β,γ) limit model (seed 004, Theorem 1 and (1.10)). On Σ the system moves by the
// constrained equations (1.4), like the classical model; along each contact
//   α z'' + β z' + γ z = −λ(t),  z = z' = 0 at the start of the contact,
// and it leaves Σ at the first simple zero τ of z if λ(τ) < 0. Special cases: α = β = 0 gives
// z = −λ/γ, the classical model; α = γ = 0 gives z = −∫λ/β, Theorem 2's first zero of ∫λ; with the
// obstacle (a reaction that only pushes) the limit is classical (seed 004, end of §6). Re-contact:
// absolutely inelastic for the viscous limit (seed 004, end of §5), Newton's law otherwise; the
// Kozlov impact preset (stiffness κN, damping 2k√N, seed 001 §5) has the limit (0, 0, κ) with
// restitution e = exp(−πk/ω), ω = √(κ − k²) (seed 001 (12)), and e = 0 when k² ≥ κ.
#include "solvers/limit.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "solvers/event_driven.hpp"

namespace crbench {

std::string LimitSolver::description() const {
  return "The (alpha,beta,gamma) limit model of seed 004 Theorem 1: motion on the constraint with "
         "alpha z'' + beta z' + gamma z = -lambda along each contact, lift-off at the first "
         "simple zero of z where lambda < 0; reports whether the theorem applies and why not.";
}

std::vector<ParamSpec> LimitSolver::parameters() const {
  std::vector<ParamSpec> params = EventDrivenSolver().parameters();
  for (auto& p : params) {
    if (p.name == "restitution") {
      p.description =
          "Newton restitution at re-contact (default: 0 for the viscous limit, seed 004 end of "
          "section 5; exp(-pi k/omega) for kozlov-impact, seed 001 (12); 1 otherwise)";
    }
  }
  const std::vector<ParamSpec> own{
      {.name = "alpha",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1e9,
       .description = "added-mass coefficient (default: the preset's)"},
      {.name = "beta",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e9,
       .description = "viscosity coefficient (default: the preset's)"},
      {.name = "gamma",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1e9,
       .description = "stiffness coefficient (default: the preset's)"},
      {.name = "kappa",
       .default_value = 1.0,
       .min = 0.0,
       .max = 1e9,
       .min_inclusive = false,
       .description = "kozlov-impact: stiffness kappa N (seed 001 section 5)"},
      {.name = "k",
       .default_value = 0.1,
       .min = 0.0,
       .max = 1e9,
       .description = "kozlov-impact: damping force 2 k sqrt(N) f' (seed 001 section 5)"},
  };
  params.insert(params.begin(), own.begin(), own.end());
  return params;
}

std::vector<ChoiceSpec> LimitSolver::choices() const {
  return {
      {.name = "preset",
       .options = {"viscous", "penalty", "kozlov-impact"},
       .default_value = "viscous",
       .description =
           "(alpha,beta,gamma) = (0,1,0), (0,0,1), or the kozlov-impact limit (0,0,kappa) "
           "with restitution exp(-pi k/omega); --alpha/--beta/--gamma override it"},
      {.name = "interaction",
       .options = {"medium", "obstacle"},
       .default_value = "medium",
       .description = "obstacle: the reaction only pushes, and the limit is classical"},
  };
}

void LimitSolver::finalize(ParamValues& params, ChoiceValues& choices,
                           const std::vector<std::string>& assigned) const {
  const auto given = [&](const std::string& name) {
    return std::find(assigned.begin(), assigned.end(), name) != assigned.end();
  };
  const std::string& preset = choices.at("preset");
  double alpha = 0.0, beta = 0.0, gamma = 0.0;
  double restitution = 1.0;
  if (preset == "viscous") {
    beta = 1.0;
    restitution = 0.0;
  } else if (preset == "penalty") {
    gamma = 1.0;
  } else {
    const double kappa = params.at("kappa"), k = params.at("k");
    gamma = kappa;
    restitution = k * k < kappa ? std::exp(-std::numbers::pi * k / std::sqrt(kappa - k * k)) : 0.0;
  }
  if (preset != "kozlov-impact") {
    for (const char* name : {"kappa", "k"}) {
      if (given(name)) {
        throw InputError(std::string("solver limit: --") + name +
                         " applies to --preset kozlov-impact only (preset is " + preset + ")");
      }
    }
  }
  if (!given("alpha")) params["alpha"] = alpha;
  if (!given("beta")) params["beta"] = beta;
  if (!given("gamma")) params["gamma"] = gamma;
  if (!given("restitution")) {
    const bool viscous = params.at("alpha") == 0.0 && params.at("gamma") == 0.0;
    params["restitution"] = viscous ? 0.0 : restitution;
  }
  if (params.at("alpha") == 0.0 && params.at("beta") == 0.0 && params.at("gamma") == 0.0) {
    throw InputError("solver limit: alpha, beta, gamma are all 0; at least one must be > 0");
  }
}

std::string LimitSolver::limit_model(const ParamValues& params, const ChoiceValues& choices) const {
  const double alpha = params.at("alpha"), beta = params.at("beta"), gamma = params.at("gamma");
  if (choices.at("interaction") == "obstacle" || (alpha == 0.0 && beta == 0.0)) return "classical";
  if (alpha == 0.0 && gamma == 0.0) return "viscous";
  return "alpha-beta-gamma";
}

std::vector<std::string> LimitSolver::extra_columns(const Model& model, const RunSettings&) const {
  std::vector<std::string> names;
  for (int k = 0; k < model.constraint_count(); ++k) {
    std::string column = "z";  // appended, not "z" + ...: GCC 12 flags that with -Wrestrict
    column += std::to_string(k);
    names.push_back(column);
  }
  return names;
}

RunRecord LimitSolver::run(const Model& model, const RunSettings& settings) const {
  const ParamValues& p = settings.solver_params;
  const LimitCoefficients c{.alpha = p.at("alpha"), .beta = p.at("beta"), .gamma = p.at("gamma")};
  // The obstacle's limit is classical; so is α = β = 0 (z = −λ/γ vanishes with λ). The record
  // still carries the theorem's diagnostics in both cases.
  const bool classical =
      settings.solver_choices.at("interaction") == "obstacle" || (c.alpha == 0.0 && c.beta == 0.0);
  return run_contact_dynamics(model, settings, name(),
                              classical ? LimitCoefficients{0.0, 0.0, 1.0} : c);
}

}  // namespace crbench
