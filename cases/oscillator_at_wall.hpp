// oscillator-at-wall (Berezinskaya, Sorokina & Kugushev 2003, §9, (9.1)–(9.2)): one degree of
// freedom with L = a(q)q̇²/2 − V(q) and the constraint f = q ≥ 0, where V'(0) > 0: the equilibrium q
// = 0 lies on the constraint and is stable. With elastic impacts, small oscillations are repeated
// impact-free arcs separated by impacts on q = 0, and the period falls with the energy as its
// square root (9.2): T ≈ 2 a(0) v / V'(0) = 2 √(2 a(0) E) / V'(0). Here a(q) = m(1 + c q) and
// V = k1 q + k2 q²/2; the exact period for energy E is 2∫₀^{q_max} dq / q̇(q).
#pragma once

#include <cmath>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct OscillatorAtWall : NoForce<1> {
  static constexpr int n = 1;
  static constexpr int m = 1;

  double mass, c, k1, k2, energy;

  explicit OscillatorAtWall(const ParamValues& p)
      : mass(p.at("m")), c(p.at("c")), k1(p.at("k1")), k2(p.at("k2")), energy(p.at("E")) {}

  static CaseInfo info() {
    return {
        .name = "oscillator-at-wall",
        .description =
            "Berezinskaya, Sorokina & Kugushev 2003 section 9: one degree of freedom, L = a(q) "
            "q'^2/2 - V(q), a(q) = m (1 + c q), V = k1 q + k2 q^2/2, constraint f = q >= 0; V'(0) "
            "= k1 > 0 makes q = 0 a stable equilibrium on the constraint. Started at q = 0 leaving "
            "the wall with energy E; with elastic impacts (restitution 1) the motion repeats "
            "impact-free arcs whose period falls like sqrt(E) (9.2): T ~ 2 sqrt(2 m E)/k1 for "
            "small E.",
        .params = {{.name = "m",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass",
                    .description = "a(0)"},
                   {.name = "c",
                    .default_value = 0.5,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "1/length",
                    .description = "a(q) = m (1 + c q)"},
                   {.name = "k1",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "force",
                    .description = "V'(0), pressing the system onto the wall"},
                   {.name = "k2",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "force/length",
                    .description = "V''"},
                   {.name = "E",
                    .default_value = 1e-4,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "energy",
                    .description = "energy of the oscillation"}},
        .dof = n,
        .coordinates = {{"q", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"wall"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    return Mat<S, n, n>::Constant(mass * (1.0 + c * q(0)));
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return k1 * q(0) + 0.5 * k2 * q(0) * q(0);
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(0));
  }
  State initial_state() const {
    return {
        .t = 0.0, .q = Vec<double, 1>(0.0), .v = Vec<double, 1>(std::sqrt(2.0 * energy / mass))};
  }

  // The turning point V(q_max) = E and the exact period 2∫₀^{q_max} dq / q̇ with
  // q̇ = √(2(E − V(q))/a(q)). The substitution q = q_max(1 − s²) and the factorization
  // E − V(q) = (q_max − q)(k1 + k2(q_max + q)/2) remove the inverse-square-root end point without
  // cancellation: the integrand becomes smooth on s ∈ [0, 1].
  double turning_point() const {
    return k2 > 0.0 ? 2.0 * energy / (k1 + std::sqrt(k1 * k1 + 2.0 * k2 * energy)) : energy / k1;
  }
  double period() const {
    const double q_max = turning_point();
    const auto integrand = [this, q_max](double s) {
      const double q = q_max * (1.0 - s * s);
      const double factor = k1 + 0.5 * k2 * (q_max + q);  // (E − V(q)) / (q_max − q)
      // dq = 2 q_max s ds and q_max − q = q_max s², so dq/q̇ = 2 √(q_max a(q) / (2 factor)) ds.
      return 2.0 * std::sqrt(q_max * mass * (1.0 + c * q) / (2.0 * factor));
    };
    return 2.0 * analysis::integrate(integrand, 0.0, 1.0);
  }
  double horizon() const { return 5.5 * period(); }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "period",
                            .value = period(),
                            .source = "2 * integral of dq / q' over [0, q_max] (Gauss-Kronrod "
                                      "after q = q_max (1 - s^2))"});
    facts.values.push_back({.name = "small-energy period 2 sqrt(2 m E)/k1",
                            .value = 2.0 * std::sqrt(2.0 * mass * energy) / k1,
                            .source = "Berezinskaya, Sorokina & Kugushev 2003 (9.2)"});
    return facts;
  }
};

}  // namespace crbench::cases
