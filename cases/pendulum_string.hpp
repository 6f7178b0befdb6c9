// pendulum-string: a unit point on an inextensible string of length L — a unilateral constraint
// f = L − r ≥ 0 — in polar coordinates (r, θ) about the pivot, θ from the bottom, gravity g,
// started at the bottom with speed v0. T = (ṙ² + r²θ̇²)/2, V = −g r cos θ. On the circle
// L²θ̇² = v0² − 2gL(1 − cos θ) and the r-equation gives the multiplier of f (the tension)
// λ = Lθ̇² + g cos θ = 3g cos θ − 2g + v0²/L: the string goes slack where
// cos θ = (2 − v0²/(gL))/3, which is above the horizontal when 2gL < v0² < 5gL.
#pragma once

#include <cmath>

#include "crbench/cases/analysis.hpp"
#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct PendulumString : NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 1;

  double L, g, v0;

  explicit PendulumString(const ParamValues& p) : L(p.at("L")), g(p.at("g")), v0(p.at("v0")) {}

  static CaseInfo info() {
    return {
        .name = "pendulum-string",
        .description =
            "Unit point on an inextensible string of length L: f = L - r >= 0 in polar coordinates "
            "(r, theta) about the pivot, theta from the bottom; T = (r'^2 + r^2 theta'^2)/2, V = "
            "-g r cos(theta); started at the bottom with speed v0. The tension lambda = 3 g "
            "cos(theta) - 2 g + v0^2/L vanishes where cos(theta) = (2 - v0^2/(g L))/3: the string "
            "goes slack there (above the horizontal for 2 g L < v0^2 < 5 g L) and the point flies "
            "on a parabola.",
        .params = {{.name = "L",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length",
                    .description = "string length"},
                   {.name = "g",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time^2",
                    .description = "gravity"},
                   {.name = "v0",
                    .default_value = 2.1,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description = "speed at the bottom"}},
        .dof = n,
        .coordinates = {{"r", "length"}, {"theta", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"string"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  Mat<S, n, n> metric(const Vec<S, n>& q) const {
    Mat<S, n, n> A = Mat<S, n, n>::Zero();
    A(0, 0) = S(1.0);
    A(1, 1) = q(0) * q(0);
    return A;
  }
  template <class S>
  S potential(const Vec<S, n>& q, const S& /*t*/) const {
    using std::cos;
    return -g * q(0) * cos(q(1));
  }
  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(L - q(0));
  }
  State initial_state() const {
    return {.t = 0.0, .q = Eigen::Vector2d(L, 0.0), .v = Eigen::Vector2d(0.0, v0 / L)};
  }

  bool goes_slack() const { return 2.0 * g * L < v0 * v0 && v0 * v0 < 5.0 * g * L; }
  double slack_angle() const { return std::acos((2.0 - v0 * v0 / (g * L)) / 3.0); }
  double slack_time() const {
    return analysis::integrate(
        [this](double s) { return L / std::sqrt(v0 * v0 - 2.0 * g * L * (1.0 - std::cos(s))); },
        0.0, slack_angle());
  }
  double horizon() const { return goes_slack() ? 2.0 * slack_time() : 10.0 * std::sqrt(L / g); }

  Facts facts() const {
    Facts facts;
    if (goes_slack()) {
      facts.lift_off.push_back({.model = "classical",
                                .time = slack_time(),
                                .source = "tension 3 g cos(theta) - 2 g + v0^2/L = 0; t by "
                                          "quadrature of L/(L theta') along the circle"});
      facts.values.push_back({.name = "slack angle",
                              .value = slack_angle(),
                              .source = "cos(theta) = (2 - v0^2/(g L))/3"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
