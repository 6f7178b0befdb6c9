// The (α,β,γ) limit model (Deryabin & Kozlov 1995, Theorem 1 and (1.10)). On Σ the system moves by
// the constrained equations (1.4), like the classical model; along each contact
//   α z'' + β z' + γ z = −λ(t),  z = z' = 0 at the start of the contact,
// and it leaves Σ at the first simple zero τ of z if λ(τ) < 0. Special cases: α = β = 0 gives
// z = −λ/γ, the classical model; α = γ = 0 gives z = −∫λ/β, Theorem 2's first zero of ∫λ; with the
// obstacle (a reaction that only pushes) the limit is classical (Deryabin & Kozlov 1995, end of
// §6). Re-contact: absolutely inelastic for the viscous limit (Deryabin & Kozlov 1995, end of §5),
// Newton's law otherwise; the Kozlov impact preset (stiffness κN, damping 2k√N, Kozlov 1992 §5) has
// the limit (0, 0, κ) with the restitution e = exp(−πk/√(κ/Λ − k²)) of each impact, Λ = |∇f|²_{A⁻¹}
// there (solvers/impact_law.hpp; Kozlov 1992 (12) is Λ = 1), and e = 0 when k² ≥ κ/Λ.
#include "crbench/solvers/limit.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "crbench/solvers/dynamics.hpp"
#include "crbench/solvers/event_driven.hpp"
#include "crbench/solvers/kinematic_limit.hpp"
#include "crbench/solvers/model_parameters.hpp"

namespace crbench {

std::string LimitSolver::description() const {
  return "The (alpha,beta,gamma) limit model of Deryabin & Kozlov 1995 Theorem 1: motion on the "
         "constraint with alpha z'' + beta z' + gamma z = -lambda along each contact, lift-off at "
         "the first simple zero of z where lambda < 0; reports whether the theorem applies and why "
         "not.";
}

std::vector<ParamSpec> LimitSolver::parameters() const {
  std::vector<ParamSpec> params = EventDrivenSolver().parameters();
  // kappa and k come with the model's coefficients below.
  std::erase_if(params, [](const ParamSpec& p) { return p.name == "kappa" || p.name == "k"; });
  for (auto& p : params) {
    if (p.name == "restitution") {
      p.description =
          "Newton restitution at re-contact (Deryabin & Kozlov 1995 end of section 5: 0 for the "
          "viscous limit); the kozlov-impact preset has the Kozlov wall's law instead, e from "
          "kappa, k and Lambda = |grad f|^2_{A^-1} at each impact";
      p.default_note = "0 for the viscous limit, 1 otherwise";
    }
  }
  const std::vector<ParamSpec> own = model_coefficient_params();
  params.insert(params.begin(), own.begin(), own.end());
  params.push_back(ideal_restitution_spec());
  return params;
}

std::vector<ChoiceSpec> LimitSolver::choices() const {
  std::vector<ChoiceSpec> choices = model_choices(
      "(alpha,beta,gamma) = (0,1,0), (0,0,1), or the kozlov-impact limit (0,0,kappa) with "
      "restitution exp(-pi k/sqrt(kappa/Lambda - k^2)), Lambda = |grad f|^2_{A^-1} at the impact; "
      "--alpha/--beta/--gamma override it",
      "obstacle: the reaction only pushes, and the limit is classical");
  // With α > 0 the z-equation oscillates along a contact and its period sets the step, where
  // DOP853's order pays. With α = 0 the step bound sets most steps and dopri5 costs less; and
  // DOP853's error estimate, with weights of order 1 where dopri5's are of order 1e-3, feels more
  // of the round-off of a constrained acceleration that cancels large forces. The counts are in
  // docs/internals.md ("The smooth phases' integrator").
  choices.push_back(phase_integrator_choice(
      {"auto", "dop853", "dopri5", "odeint-dopri5"}, "auto",
      "auto by default: dop853 where alpha > 0 (the oscillating z-equation sets the step: about a "
      "fifth of dopri5's steps at rtol 1e-12), dopri5 otherwise"));
  choices.push_back(realize_choice());
  choices.push_back(contact_scale_choice());
  return choices;
}

void LimitSolver::finalize(ParamValues& params, ChoiceValues& choices,
                           const std::vector<std::string>& assigned) const {
  finalize_realized_set(params, choices, assigned, "solver limit", {"ideal_restitution"});
  const std::string preset = choices.at("preset");
  const bool restitution_given =
      std::find(assigned.begin(), assigned.end(), "restitution") != assigned.end();
  if (preset == "kozlov-impact") {
    // The N → ∞ limit of stiffness κN with damping 2k√N is (0, 0, κ) with the Kozlov wall's
    // restitution e(Λ) at each impact (solvers/impact_law.hpp): kappa and k stay in the
    // parameters, which selects that law (ImpactLaw::from).
    if (restitution_given) {
      throw InputError(
          "solver limit: --restitution does not combine with --preset kozlov-impact, whose "
          "restitution follows from --kappa, --k and the metric at each impact");
    }
    apply_model_preset(params, choices, assigned, "solver limit", 0.0, 0.0, params.at("kappa"));
    params.erase("restitution");
    return;
  }
  apply_model_preset(params, choices, assigned, "solver limit", 0.0,
                     preset == "viscous" ? 1.0 : 0.0, preset == "penalty" ? 1.0 : 0.0);
  if (!restitution_given) {
    // Re-contact in the viscous limit is absolutely inelastic (Deryabin & Kozlov 1995, end of §5).
    const bool viscous = params.at("alpha") == 0.0 && params.at("gamma") == 0.0;
    params["restitution"] = viscous ? 0.0 : 1.0;
  }
}

std::string LimitSolver::limit_model(const ParamValues& params, const ChoiceValues& choices) const {
  return model_limit_name(params, choices);
}

std::vector<std::string> LimitSolver::extra_columns(const Model& model, const RunSettings&) const {
  std::vector<std::string> names;
  // λ of the μ = β/α family, the limit of the realization's N g (its Ng<r> columns).
  for (int r = 0; r < model.kinematic_count(); ++r) names.push_back("Ng" + std::to_string(r));
  // The bilateral limit (holonomic or Rubin–Ungar) has no z.
  if (model.kinematic_count() > 0 || model.bilateral_count() > 0) return names;
  for (int k = 0; k < model.constraint_count(); ++k) {
    std::string column = "z";  // appended, not "z" + ...: GCC 12 flags that with -Wrestrict
    column += std::to_string(k);
    names.push_back(column);
  }
  return names;
}

namespace {

// The limit of the (0,β,γ)N realization of one bilateral constraint f = 0 (Kozlov 1992 §4):
// V_N = V + γN f²/2, Φ_N = βN ḟ²/2. From data that satisfy condition (10) (f = 0, ḟ = 0), or
// with damping β > 0, the holonomic motion on f = 0 (Courant). From f = 0 with ḟ ≠ 0 and β = 0
// the normal oscillation of frequency ω(q) = √(γN)|∇f|_{A⁻¹} keeps its adiabatic invariant E⊥/ω,
// and the slow motion is the holonomic one under the extra potential
//   U(q) = E⊥(0) ω(q)/ω(q0),  E⊥(0) = ½ ḟ(0)²/|∇f(q0)|²_{A⁻¹}
// (Rubin–Ungar; docs/theory.md §2), from the tangential part of q̇(0) in the kinetic metric.
RunRecord run_bilateral_limit(const Model& model, const RunSettings& settings,
                              const std::string& solver) {
  const ParamValues& p = settings.solver_params;
  check_bilateral_model(model, settings, solver);
  if (model.bilateral_count() != model.constraint_count() || model.kinematic_count() > 0) {
    throw InputError("--case: " + model.info().name +
                     " mixes bilateral constraints with other constraints; the limit solver "
                     "computes the limit of bilateral ones in cases that have no other");
  }
  if (model.bilateral_count() != 1) {
    throw InputError("--case: " + model.info().name + " has " +
                     std::to_string(model.bilateral_count()) +
                     " bilateral constraints; the limit solver computes one (the normal modes of "
                     "several may resonate)");
  }
  if (p.at("alpha") != 0.0) {
    throw InputError(
        "--alpha: the limit of the added-mass realization of a bilateral constraint is not "
        "computed (its normal oscillation does not become fast); accepted: alpha = 0");
  }
  State start = model.initial_state();
  const std::vector<int> modes = model.modes_at(start);
  Point point;
  model.evaluate(start, modes, point);
  if (std::abs(point.f(0)) > p.at("contact_distance_tol")) {
    throw InputError("initial data: f(q0) = " + format_number(point.f(0)) +
                     ": the normal energy gamma N f^2/2 grows without bound with N, so the "
                     "realizations have no finite limit; start on f = 0 (a normal velocity is "
                     "accepted)");
  }
  const Delassus D = delassus(point, {0});
  const double normal_rate = point.constraint_rate(start.v)(0);
  const double omega0 = std::sqrt(D.W(0, 0));  // ω(q0)/√(γN)
  const double normal_energy = 0.5 * normal_rate * normal_rate / D.W(0, 0);
  start.v -= D.Ainv_Jt * (normal_rate / D.W(0, 0));

  HolonomicExtras extras;
  extras.start = start;
  std::string kind = "holonomic", why;
  if (std::abs(normal_rate) <= p.at("contact_velocity_tol")) {
    why = "the initial data satisfy Kozlov 1992 condition (10): f = 0 and f' = 0";
  } else if (p.at("beta") > 0.0) {
    why = "the damping beta N f'^2/2 dissipates the normal energy; the limit is holonomic";
  } else if (p.at("gamma") == 0.0) {
    throw InputError(
        "--gamma: the realization of a bilateral constraint needs gamma > 0 or "
        "beta > 0");
  } else {
    kind = "rubin-ungar";
    why = "f' = " + format_number(normal_rate) +
          " at t = 0 and no damping: the normal oscillation keeps E/omega, and the slow motion "
          "feels U = E omega(q)/omega(q0) (Rubin-Ungar)";
    // −∂U/∂q by forward AD: |∇f|_{A⁻¹} = √(J A⁻¹ Jᵀ) with J and A carrying their derivatives.
    extras.extra_force = [&model, normal_energy, omega0](const State& x) {
      PointT<Dual> work;
      model.evaluate_dual(x, model.modes_at(x), work);
      using DualMatrix = Eigen::Matrix<Dual, Eigen::Dynamic, Eigen::Dynamic>;
      const DualMatrix Ainv_Jt = work.A.partialPivLu().solve(DualMatrix(work.J.transpose()));
      const Dual omega = sqrt(Dual(work.J.row(0).dot(Ainv_Jt.col(0))));
      return Eigen::VectorXd(-normal_energy / omega0 * omega.derivatives().head(x.q.size()));
    };
  }
  RunRecord record = run_contact_dynamics(model, settings, solver, std::nullopt, extras);
  record.diagnostics["limit_kind"] = kind;
  record.diagnostics["limit_why"] = why;
  record.diagnostics["normal_energy"] = normal_energy;
  return record;
}

}  // namespace

std::optional<std::string> LimitSolver::refusal(const Model& model,
                                                const RunSettings& settings) const {
  if (model.kinematic_count() > 0 && model.constraint_count() > 0) {
    return "solver limit on case " + model.info().name +
           ": unilateral and kinematic constraints in one case have no limit model here; "
           "event-driven computes their ideal motion";
  }
  return kinematic_start_refusal(model, parameter_or_default(settings, "contact_velocity_tol"));
}

namespace {

// The constraints' scales into the z-equation; a power-law spring (ContactLaw::exponent ≠ 1) has
// a z-equation of another form (the depth scales as N^(−1/η), not 1/N), which is not computed:
// refused where z is carried.
void contact_laws_of_limit(const Model& model, const std::vector<ContactLaw>& laws,
                           LimitCoefficients& c) {
  bool scaled = false;
  for (int k = 0; k < model.constraint_count(); ++k) {
    const ContactLaw law = laws[static_cast<std::size_t>(k)];
    if (law == ContactLaw{} || !c.realizes(k)) continue;
    if (law.exponent != 1.0) {
      throw InputError("--case: " + model.info().name + "'s constraint " +
                       model.constraint_name(k) + " has a power-law spring (exponent " +
                       format_number(law.exponent) +
                       "), whose limit is computed only where it is classical; accepted: "
                       "alpha = beta = 0 or --interaction obstacle");
    }
    scaled = true;
  }
  if (!scaled) return;
  for (const ContactLaw& law : laws) c.scale.push_back(law.scale);
}

}  // namespace

RunRecord LimitSolver::solve(const Model& model, const RunSettings& settings) const {
  const ParamValues& p = settings.solver_params;
  if (const auto why = refusal(model, settings)) throw InputError(*why);
  // Checked first: it refuses an ideal constraint where the paths below have none.
  const std::vector<char> realized = realized_constraints(model, settings, "solver limit");
  // Read (and --contact-scale checked) on every path, also where the limit does not use it.
  const std::vector<ContactLaw> laws = contact_laws(model, settings, "solver limit");
  if (model.bilateral_count() > 0) return run_bilateral_limit(model, settings, name());
  if (model.unilateral_kinematic_count() > 0) {
    // The one-sided friction −βN min(g, 0) aᵀ (α = 0: check_kinematic_model) tends to the ideal
    // one-sided constraint, as the two-sided friction tends to the nonholonomic motion (Kozlov
    // 1992 §2, applied while g ≤ 0): its limit is the classical motion with the one-sided rows.
    check_kinematic_model(model, settings, name());
    return run_contact_dynamics(model, settings, name(), std::nullopt);
  }
  if (model.kinematic_count() > 0) {
    check_kinematic_model(model, settings, name());
    RunRecord record = start_record(model, name(), settings);
    record.solver_params.erase("restitution");  // no impacts without unilateral constraints
    run_kinematic_limit(model, settings, p.at("alpha"), p.at("beta"), record);
    return record;
  }
  LimitCoefficients c{.alpha = p.at("alpha"), .beta = p.at("beta"), .gamma = p.at("gamma")};
  // The obstacle's limit is classical; so is α = β = 0 (z = −λ/γ vanishes with λ). The record
  // still carries the theorem's diagnostics in both cases.
  const bool classical =
      settings.solver_choices.at("interaction") == "obstacle" || (c.alpha == 0.0 && c.beta == 0.0);
  if (classical) c = LimitCoefficients{0.0, 0.0, 1.0};
  if (!classical) contact_laws_of_limit(model, laws, c);
  if (settings.solver_choices.count("realize")) {
    c.realized = realized;
    c.ideal_restitution = p.at("ideal_restitution");
  }
  return run_contact_dynamics(model, settings, name(), c);
}

}  // namespace crbench
