// body-with-channel (Berezinskaya, Sorokina & Kugushev 2003 §10): a plane body of mass 1 and
// central moment of inertia J on a smooth horizontal plane, with a straight channel at offset h
// from its centre of mass, in which a post fixed to the plane (the origin) slides. In the body's
// frame the post is at (ξ, η) = (ξ0 − s, h), s ∈ [0, l] the post's travel along the channel (two
// unilateral constraints, s ≥ 0 and l − s ≥ 0), φ the body's angle. The centre of mass is at
// −R(φ)(ξ, η), so its velocity in the body's frame is (ξ̇ − η φ̇, η̇ + ξ φ̇) with ξ̇ = −ṡ, η̇ = 0:
//   T = ((ṡ + h φ̇)² + (ξ0 − s)² φ̇²)/2 + J φ̇²/2,  V = 0.
// (The paper's own formulas are damaged in the text; this is the mechanics it describes.) φ is
// cyclic: K = ∂T/∂φ̇ = h ṡ + (J + ρ²) φ̇, ρ² = ξ² + h², the angular momentum about the post.
// Routh's reduction leaves a(s) ṡ²/2 + W(s) = const with a = (J + ξ²)/(J + ρ²) and
// W = K²/(2 (J + ρ²)); W' = K² ξ/(J + ρ²)² > 0 while ξ > 0, so the wall s = 0 is a stable
// equilibrium on the constraint (the §9 situation of oscillator-at-wall): with elastic impacts the
// body oscillates in the channel, one impact a period T(E), and T(E) → 2 √(2 a(0) E)/W'(0) as the
// energy E above the equilibrium → 0 (the √E law, (9.2)). The first correction, derived from the
// period integral (docs/theory.md §3): T = c1 √E (1 + κ E + O(E²)) with c1 = 2 √(2 a0)/w1 and
// κ = −(4/3) w2/w1² + (1/3) a1/(a0 w1), where W(s) − W(0) = w1 s + w2 s² + …, a = a0 + a1 s + ….
#pragma once

#include <cmath>
#include <optional>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct BodyWithChannel : NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 2;

  double J, xi0, h, l, K, energy;

  explicit BodyWithChannel(const ParamValues& p)
      : J(p.at("J")),
        xi0(p.at("xi0")),
        h(p.at("h")),
        l(p.at("l")),
        K(p.at("K")),
        energy(p.at("E")) {}

  static CaseInfo info() {
    return {
        .name = "body-with-channel",
        .description =
            "Berezinskaya, Sorokina & Kugushev 2003 section 10: a plane body (mass 1, central "
            "moment J) on a smooth plane with a straight channel at offset h from its centre of "
            "mass, in which a fixed post slides; the post at body coordinates (xi0 - s, h), s in "
            "[0, l] (constraints s >= 0 and l - s >= 0), phi the body's angle: T = ((s' + h "
            "phi')^2 + (xi0 - s)^2 phi'^2)/2 + J phi'^2/2, V = 0. phi is cyclic (angular momentum "
            "K about the post); Routh's reduction gives a(s) s'^2/2 + W(s) with a = (J + xi^2)/(J "
            "+ rho^2), W = K^2/(2 (J + rho^2)), rho^2 = xi^2 + h^2: s = 0 is a stable equilibrium "
            "on the constraint. Started at s = 0 moving into the channel with energy E above it; "
            "with elastic impacts one impact at s = 0 a period T(E) -> 2 sqrt(2 a(0) E)/W'(0).",
        .params = {{.name = "J",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2",
                    .description = "central moment of inertia of the body (its mass is 1)"},
                   {.name = "xi0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "the post's distance along the channel from the centre of "
                                   "mass's foot at s = 0 (positive: s = 0 is stable)"},
                   {.name = "h",
                    .default_value = 0.5,
                    .min = -1e6,
                    .max = 1e6,
                    .unit = "length",
                    .description = "offset of the channel from the centre of mass"},
                   {.name = "l",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "length of the channel (the post's travel)"},
                   {.name = "K",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2/time",
                    .description = "angular momentum about the post (conserved)"},
                   {.name = "E",
                    .default_value = 1e-3,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "energy",
                    .description = "energy above the equilibrium at s = 0 (the turning point must "
                                   "lie inside the channel for the period facts)"}},
        .dof = n,
        .coordinates = {{"s", "length"}, {"phi", "angle (rad)"}},
        .constraint_units = {"length", "length"},
        .constraint_names = {"channel_start", "channel_end"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    const S xi = xi0 - q(0);
    Mat<S, n, n> M;
    M(0, 0) = S(1.0);
    M(0, 1) = S(h);
    M(1, 0) = S(h);
    M(1, 1) = h * h + xi * xi + J;
    return M;
  }
  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    Vec<S, m> f;
    f(0) = q(0);
    f(1) = l - q(0);
    return f;
  }

  // J + ρ² at s, a(s) and W(s) of the Routh reduction.
  double inertia(double s) const { return J + (xi0 - s) * (xi0 - s) + h * h; }
  double reduced_mass(double s) const { return (J + (xi0 - s) * (xi0 - s)) / inertia(s); }

  State initial_state() const {
    // At the wall with s' = sqrt(2E/a(0)) into the channel, phi' from the angular momentum K.
    const double rate = std::sqrt(2.0 * energy / reduced_mass(0.0));
    Vec<double, n> v;
    v << rate, (K - h * rate) / inertia(0.0);
    return {.t = 0.0, .q = Vec<double, n>::Zero(), .v = v};
  }

  // The turning point: W(s_max) − W(0) = E, i.e. D0 − D(s_max) = δ = 2 E D0²/(K² + 2 E D0) with
  // D = J + ρ², and D0 − D(s) = s (2 ξ0 − s); solved without cancellation at small E. None when
  // the body would pass ξ = 0 or reach the channel's end.
  std::optional<double> turning_point() const {
    const double D0 = inertia(0.0);
    const double delta = 2.0 * energy * D0 * D0 / (K * K + 2.0 * energy * D0);
    if (!(delta < xi0 * xi0)) return std::nullopt;
    const double s = delta / (xi0 + std::sqrt(xi0 * xi0 - delta));
    if (!(s < l)) return std::nullopt;
    return s;
  }

  // The period 2 ∫₀^{s_max} ds/ṡ, ṡ = √(2 (W(s_max) − W(s))/a(s)). W(s_max) − W(s) = (s_max − s)
  // F(s) with F = (K²/2)(2 ξ0 − s − s_max)/(D(s) D(s_max)) exactly; s = s_max (1 − u²) then
  // makes the integrand smooth: dt = 2 √(s_max a(s)/(2 F(s))) du.
  std::optional<double> period() const {
    const auto s_max = turning_point();
    if (!s_max) return std::nullopt;
    const double top = *s_max;
    const auto integrand = [this, top](double u) {
      const double s = top * (1.0 - u * u);
      const double F = 0.5 * K * K * (2.0 * xi0 - s - top) / (inertia(s) * inertia(top));
      return 2.0 * std::sqrt(top * reduced_mass(s) / (2.0 * F));
    };
    return 2.0 * analysis::integrate(integrand, 0.0, 1.0);
  }

  // c1 and κ of T = c1 √E (1 + κ E + O(E²)).
  double period_coefficient() const {
    const double D0 = inertia(0.0);
    const double w1 = K * K * xi0 / (D0 * D0);
    return 2.0 * std::sqrt(2.0 * reduced_mass(0.0)) / w1;
  }
  double period_correction() const {
    const double D0 = inertia(0.0);
    const double w1 = K * K * xi0 / (D0 * D0);
    const double w2 = 0.5 * K * K * (4.0 * xi0 * xi0 / (D0 * D0 * D0) - 1.0 / (D0 * D0));
    const double a0 = reduced_mass(0.0);
    const double a1 = -2.0 * xi0 * h * h / (D0 * D0);
    return -4.0 / 3.0 * w2 / (w1 * w1) + a1 / (3.0 * a0 * w1);
  }

  double horizon() const {
    const auto T = period();
    return T ? 5.5 * *T : 10.0;
  }

  Facts facts() const {
    Facts facts;
    if (const auto T = period()) {
      facts.values.push_back({.name = "period",
                              .value = *T,
                              .source = "2 * integral of ds / s' over [0, s_max] of the Routh "
                                        "system (Gauss-Kronrod after s = s_max (1 - u^2))"});
    }
    facts.values.push_back({.name = "small-energy period 2 sqrt(2 a(0) E)/W'(0)",
                            .value = period_coefficient() * std::sqrt(energy),
                            .source = "Berezinskaya, Sorokina & Kugushev 2003 (9.2) for the "
                                      "Routh system"});
    facts.values.push_back(
        {.name = "period with its first correction c1 sqrt(E) (1 + kappa E)",
         .value = period_coefficient() * std::sqrt(energy) * (1.0 + period_correction() * energy),
         .source = "expansion of the period integral, kappa = -(4/3) w2/w1^2 + (1/3) a1/(a0 w1) "
                   "(docs/theory.md)"});
    return facts;
  }
};

}  // namespace crbench::cases
