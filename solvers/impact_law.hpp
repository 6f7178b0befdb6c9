// The impact law of the ideal solvers: Newton's restitution e, fixed, or the restitution that
// Kozlov's stiff damped wall produces (Kozlov 1992 §5: stiffness κN, damping force 2k√N ḟ inside
// f < 0), which depends on the metric at the impact.
//
// Derivation (docs/theory.md §2), from the realization the suite integrates: inside the medium
// A q̈ = F + Jᵀλ_N, λ_N = −(2k√N ḟ + κN f), so f̈ = Λ λ_N + O(1) with Λ = J A⁻¹ Jᵀ = |∇f|²_{A⁻¹}
// (the inverse effective mass along ∇f). In the fast time s = √N t, with u(s) = √N f / v⁻ for an
// arrival speed v⁻ = −ḟ⁻ > 0, the O(1) forces drop out and
//   u'' + 2δ u' + κΛ u = 0,  u(0) = 0, u'(0) = −1,  δ = kΛ.
// Medium: the stay ends at the next zero of u, s = π/ω with ω = √(κΛ − δ²), and
//   e = exp(−πδ/ω) = exp(−πk/√(κ/Λ − k²));
// with δ² ≥ κΛ (k² ≥ κ/Λ) u never returns to 0 and e = 0. Kozlov's (12) is the case Λ = 1 (and its
// printed ω = √(Λκ − k²) is not what this realization gives). Obstacle (the reaction only
// pushes): the stay ends where λ_N = 0, i.e. 2k u' + κ u = 0, and the point flies back to f = 0
// with the speed u' it has there: e = u'(s_r). tests/test_impact_law.cpp integrates the
// realization for several Λ and compares.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include "crbench/cases/case.hpp"
#include "crbench/solvers/model_parameters.hpp"
#include "crbench/solvers/solver.hpp"

namespace crbench {

struct KozlovWall {
  double kappa = 1.0;  // stiffness κN
  double k = 0.1;      // damping force 2k√N ḟ
  bool obstacle = false;

  // The restitution of one impact of a constraint with Λ = |∇f|²_{A⁻¹} at the impact point.
  double restitution(double Lambda) const {
    const double delta = k * Lambda, stiffness = kappa * Lambda;
    const double discriminant = stiffness - delta * delta;
    if (!obstacle) {
      if (discriminant <= 0.0) return 0.0;
      return std::exp(-std::numbers::pi * delta / std::sqrt(discriminant));
    }
    // u(s) = −e^{−δs} sin(ωs)/ω (underdamped), −s e^{−δs} (critical),
    // −(e^{r₁s} − e^{r₂s})/(r₁ − r₂) (overdamped); release at the first s > 0 with 2k u' + κ u = 0.
    if (k == 0.0) return 1.0;
    if (discriminant > 0.0) {
      const double omega = std::sqrt(discriminant);
      // u' = −e^{−δs}(cos ωs − (δ/ω) sin ωs); 2k u' + κ u = 0 ⇔ tan ωs = −2kω/(κ − 2kδ), with
      // ωs ∈ (0, π) (u < 0 there).
      const double phase = std::atan2(2.0 * k * omega, -(kappa - 2.0 * k * delta));
      return std::exp(-delta * phase / omega) *
             (-std::cos(phase) + delta / omega * std::sin(phase));
    }
    if (discriminant == 0.0) {
      // 2k u' + κ u = −e^{−δs}(2k(1 − δs) + κs) vanishes at s = 2k/(2kδ − κ) if 2kδ > κ.
      if (!(2.0 * k * delta > kappa)) return 0.0;
      const double s = 2.0 * k / (2.0 * k * delta - kappa);
      return (delta * s - 1.0) * std::exp(-delta * s);
    }
    const double root = std::sqrt(-discriminant);
    const double r1 = -delta + root, r2 = -delta - root;
    // (2k r₁ + κ) e^{r₁s} = (2k r₂ + κ) e^{r₂s}: a release needs the ratio below to exceed 1.
    const double ratio = (2.0 * k * r2 + kappa) / (2.0 * k * r1 + kappa);
    if (!(2.0 * k * r1 + kappa < 0.0) || !(ratio > 1.0)) return 0.0;
    const double s = std::log(ratio) / (r1 - r2);
    return (r2 * std::exp(r2 * s) - r1 * std::exp(r1 * s)) / (r1 - r2);
  }
};

// Newton's law with a fixed e, or the Kozlov wall's e(Λ) per impacting constraint.
struct ImpactLaw {
  double fixed_restitution = 1.0;
  std::optional<KozlovWall> kozlov;

  double restitution(double Lambda) const {
    return kozlov ? kozlov->restitution(Lambda) : fixed_restitution;
  }

  // From a solver's parameters: the Kozlov wall when they carry kappa and k (the impact_law
  // kozlov-impact of event-driven and moreau-jean, the preset kozlov-impact of limit), Newton's
  // law with `restitution` otherwise.
  static ImpactLaw from(const ParamValues& params, bool obstacle = false) {
    ImpactLaw law;
    if (params.count("kappa") && params.count("k")) {
      law.kozlov = KozlovWall{params.at("kappa"), params.at("k"), obstacle};
    } else {
      law.fixed_restitution = params.at("restitution");
    }
    return law;
  }
};

// The ideal solvers' choice of impact law (event-driven, moreau-jean).
// `energetic`: event-driven's law for contacts with Coulomb friction (the impulse process).
inline ChoiceSpec impact_law_choice(bool energetic = false) {
  ChoiceSpec spec{.name = "impact_law",
                  .options = {"newton", "kozlov-impact"},
                  .default_value = "newton",
                  .description =
                      "newton: Newton's law with the fixed --restitution; kozlov-impact: the "
                      "restitution of Kozlov's stiff damped wall (stiffness kappa N, damping "
                      "2k sqrt(N) f', Kozlov 1992 section 5) in the limit N -> infinity, "
                      "e = exp(-pi k/sqrt(kappa/Lambda - k^2)) with Lambda = |grad f|^2_{A^-1} "
                      "at each impact (0 when k^2 >= kappa/Lambda)"};
  if (energetic) {
    spec.options.push_back("energetic");
    spec.description +=
        "; energetic: as newton, and where a contact with Coulomb friction strikes or slips "
        "with no consistent reaction (Painleve's paradox), the impulse process of Darboux and "
        "Keller at the fixed configuration with Stronge's energetic restitution --restitution "
        "(one contact alone; the impact without collision at an inconsistent slip)";
  }
  return spec;
}

// The parameters of the ideal solvers' impact law: restitution (newton), kappa and k
// (kozlov-impact).
inline std::vector<ParamSpec> impact_law_params() {
  std::vector<ParamSpec> params{kRestitutionSpec};
  for (auto& p : kozlov_wall_params()) params.push_back(std::move(p));
  return params;
}

// Keeps the parameters of the chosen law and refuses those of the other (InputError naming them).
inline void apply_impact_law(ParamValues& params, const ChoiceValues& choices,
                             const std::vector<std::string>& assigned, const std::string& owner) {
  const auto given = [&](const char* name) {
    return std::find(assigned.begin(), assigned.end(), name) != assigned.end();
  };
  if (choices.at("impact_law") == "kozlov-impact") {
    if (given("restitution")) {
      throw InputError(owner +
                       ": --restitution does not combine with --impact-law kozlov-impact, whose "
                       "restitution follows from --kappa, --k and the metric at each impact");
    }
    params.erase("restitution");
    return;
  }
  for (const char* name : {"kappa", "k"}) {
    if (given(name)) {
      throw InputError(owner + ": --" + name +
                       " applies to --impact-law kozlov-impact only (impact_law is " +
                       choices.at("impact_law") + ")");
    }
    params.erase(name);
  }
}

}  // namespace crbench
