// parabola-integrable: a point under gravity with the *integrable* kinematic constraint
// ẏ − x ẋ = 0, i.e. a = ∇f for f = y − x²/2 (Kozlov 1992 §4, first paragraph): the constraint
// only says that the point stays on a parabola y = x²/2 + const, so every member of the
// μ = β/α family, nonholonomic and vakonomic alike, gives the same (holonomic) motion, the bead
// on the parabola: (1 + x²) ẍ + x ẋ² + g x = 0. A property test of the kinematic machinery: the
// curl Ω of a gradient vanishes.
#pragma once

#include <cmath>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct ParabolaIntegrable : NoForce<2>, UnitMetric<2>, NoUnilateralConstraints<2> {
  static constexpr int n = 2;
  static constexpr int kinematic = 1;

  double g, x0, u0;

  explicit ParabolaIntegrable(const ParamValues& p)
      : g(p.at("g")), x0(p.at("x0")), u0(p.at("u0")) {}

  static CaseInfo info() {
    return {
        .name = "parabola-integrable",
        .description =
            "A unit point in the vertical plane, q = (x, y), T = (x'^2 + y'^2)/2, V = g y, with "
            "the integrable kinematic constraint y' - x x' = 0 (a = grad(y - x^2/2)); started on "
            "y = x^2/2 at x0 with horizontal speed u0. Every member of the mu = beta/alpha "
            "family gives the holonomic motion of a bead on the parabola, (1 + x^2) x'' + x x'^2 "
            "+ g x = 0 (Kozlov 1992 section 4).",
        .params = {{.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "x0",
                    .default_value = 1.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length",
                    .description = "initial abscissa (the point starts on y = x^2/2)"},
                   {.name = "u0",
                    .default_value = 0.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "length/time",
                    .description = "initial horizontal speed"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    return g * q(1);
  }

  template <class S>
  Mat<S, kinematic, n> kinematic_rows(const Vec<S, n>& q, const S& /*t*/) const {
    Mat<S, kinematic, n> a;
    a(0, 0) = -q(0);
    a(0, 1) = S(1.0);
    return a;
  }

  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(x0, 0.5 * x0 * x0), .v = Eigen::Vector2d(u0, x0 * u0)};
  }

  double horizon() const { return 5.0; }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "energy",
                            .value = 0.5 * u0 * u0 * (1.0 + x0 * x0) + g * 0.5 * x0 * x0,
                            .source = "T + V at t = 0, kept by every member"});
    return facts;
  }
};

}  // namespace crbench::cases
