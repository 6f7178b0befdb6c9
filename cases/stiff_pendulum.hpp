// stiff-pendulum: a point under gravity held on the circle x² + y² = L² by the bilateral
// constraint f = (x² + y² − L²)/(2L) = 0. Its gradient has |∇f| = r/L = 1 on the circle, so the
// normal frequency √(γN)|∇f| of the penalty realization is the same everywhere on it: the
// Rubin–Ungar potential is constant and the limit is the rigid pendulum even when the data
// violate Kozlov 1992 condition (10) by a radial speed vr (Kozlov 1992 §4).
#pragma once

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct StiffPendulum : NoForce<2>, UnitMetric<2>, NoUnilateralConstraints<2> {
  static constexpr int n = 2;
  static constexpr int bilateral = 1;

  double L, g, v0, vr;

  explicit StiffPendulum(const ParamValues& p)
      : L(p.at("L")), g(p.at("g")), v0(p.at("v0")), vr(p.at("vr")) {}

  static CaseInfo info() {
    return {
        .name = "stiff-pendulum",
        .description =
            "A unit point under gravity, q = (x, y), V = g y, on the circle x^2 + y^2 = L^2 as "
            "the bilateral constraint f = (x^2 + y^2 - L^2)/(2 L) = 0; started at the bottom "
            "(0, -L) with tangential speed v0 and outward radial speed vr. |grad f| = 1 on the "
            "circle, so even with vr != 0 the penalty realization tends to the rigid pendulum "
            "(Kozlov 1992 section 4).",
        .params = {{.name = "L",
                    .default_value = 1.0,
                    .min = 1e-3,
                    .max = 1e3,
                    .unit = "length",
                    .description = "length"},
                   {.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "v0",
                    .default_value = 1.0,
                    .min = -100.0,
                    .max = 100.0,
                    .unit = "length/time",
                    .description = "tangential speed at the bottom"},
                   {.name = "vr",
                    .default_value = 0.5,
                    .min = -100.0,
                    .max = 100.0,
                    .unit = "length/time",
                    .description = "outward radial speed at t = 0 (0 satisfies Kozlov 1992 (10))"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length"},
        .constraint_names = {"rod"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(1);
  }

  template <class S>
  Vec<S, bilateral> bilateral_constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, bilateral>((q(0) * q(0) + q(1) * q(1) - L * L) / (2.0 * L));
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(0.0, -L), .v = Eigen::Vector2d(v0, -vr)};
  }

  double horizon() const { return 5.0; }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "limit energy",
                            .value = 0.5 * v0 * v0 - g * L,
                            .source = "T + V of the rigid pendulum from the tangential speed v0 "
                                      "at the bottom (the radial energy stays in the fast mode)"});
    return facts;
  }
};

}  // namespace crbench::cases
