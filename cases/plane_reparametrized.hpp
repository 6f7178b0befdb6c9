// plane-reparametrized: dk-plane (Deryabin & Kozlov 1995 §6) with the same surface Σ = {y = 0}
// written by a different function, f = y·(1 + κ(x − x_c)²). The motion on Σ, the classical model
// and μ (the reaction in the kinetic metric) are dk-plane's; the multiplier of this f is λ_f = λ/(1
// + κ(x − x_c)²), λ = ±g dk-plane's. The viscous limit (Deryabin & Kozlov 1995 Theorem 2) leaves at
// the first zero of ∫λ_f dt, which depends on f: docs/theory.md §2, "two functions f with the same
// Σ can give different delays".
//
// With x = t − 1 and λ = g (t < 1), −g (t > 1), the zero τ solves
//   ∫₀¹ w dt = ∫₁^τ w dt,  w = 1/(1 + κ(t − 1 − x_c)²),
// so with u = √κ: τ = 1 + x_c + tan(atan(u(1 + x_c)) − 2 atan(u x_c))/u. For x_c = 0 (the original
// f = y(1 + κx²)) w is symmetric about the switch and τ = 2 for every κ, as for dk-plane; x_c ≠ 0
// moves it (κ = 1, x_c = 0.5: τ = 1.5556).
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>

#include "crbench/cases/dk_plane.hpp"

namespace crbench::cases {

struct PlaneReparametrized : DkPlane {
  double kappa, x_c;

  explicit PlaneReparametrized(const ParamValues& p)
      : DkPlane(p), kappa(p.at("kappa")), x_c(p.at("x_c")) {}

  static CaseInfo info() {
    CaseInfo info = DkPlane::info();
    info.name = "plane-reparametrized";
    info.description =
        "dk-plane (Deryabin & Kozlov 1995 section 6) with the constraint written f = y (1 + kappa "
        "(x - x_c)^2): the same surface y = 0, the same classical motion and mu, but the "
        "multiplier of f is lambda/(1 + kappa (x - x_c)^2). The viscous limit leaves at the first "
        "zero of its integral, tau = 1 + x_c + tan(atan(u (1 + x_c)) - 2 atan(u x_c))/u, u = "
        "sqrt(kappa): 2 for x_c = 0 (symmetry about the switch), 1.5556 for kappa = 1, x_c = 0.5.";
    info.params.push_back({.name = "kappa",
                           .default_value = 1.0,
                           .min = 0.0,
                           .max = 100.0,
                           .description = "weight of the reparametrization"});
    info.params.push_back({.name = "x_c",
                           .default_value = 0.5,
                           .min = -0.9,
                           .max = 0.9,
                           .unit = "length",
                           .description = "centre of the weight (0: the symmetric f = y(1 + kappa "
                                          "x^2), which cannot move the viscous lift-off)"});
    return info;
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    const S dx = q(0) - x_c;
    return Vec<S, m>(q(1) * (1.0 + kappa * dx * dx));
  }

  // The first zero of ∫λ_f dt after the switch, or nullopt if ∫λ_f stays positive.
  std::optional<double> viscous_time() const {
    if (kappa == 0.0) return 2.0;
    const double u = std::sqrt(kappa);
    const double angle = std::atan(u * (1.0 + x_c)) - 2.0 * std::atan(u * x_c);
    // τ − 1 − x_c = tan(angle)/u must lie beyond the switch (τ > 1): angle > atan(−u x_c).
    if (!(angle > std::atan(-u * x_c)) || angle >= std::numbers::pi / 2) return std::nullopt;
    return 1.0 + x_c + std::tan(angle) / u;
  }

  double horizon() const {
    const auto tau = viscous_time();
    return tau ? std::max(3.0, 1.5 * *tau) : 3.0;
  }

  Facts facts() const {
    Facts facts = DkPlane::facts();
    facts.lift_off.erase(facts.lift_off.begin() + 1, facts.lift_off.end());  // keep classical
    facts.trajectories.resize(1);  // dk-plane's (6.5) is for f = y
    if (const auto tau = viscous_time()) {
      facts.lift_off.push_back({.model = "viscous",
                                .time = *tau,
                                .source = "Deryabin & Kozlov 1995 Theorem 2: first zero of the "
                                          "integral of lambda/(1 + kappa (x - x_c)^2), x = t - 1"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
