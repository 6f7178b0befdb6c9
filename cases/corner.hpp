// corner: a unit point in the plane hitting the corner of two walls at once. The walls meet at the
// origin at the interior angle φ (`angle`): the floor f_0 = y ≥ 0 and the wall
// f_1 = x sin φ − y cos φ ≥ 0, the line at angle φ from the x axis. No forces; the point starts at
// the corner moving into it along the bisector, v = −v0 (cos φ/2, sin φ/2), so both constraints
// are touched at once with ḟ_0 = ḟ_1 = −v0 sin(φ/2).
//
// Facts. The kinetic metric is the identity, so the walls are orthogonal in it at φ = π/2: the
// normal motions along x and y are then independent, each a one-dimensional bounce, and any
// elastic law (Newton's at e = 1 on both rows, a spring of any stiffness and exponent on each)
// returns v = v0 (cos φ/2, sin φ/2), whatever the stiffness ratio. At another angle the two
// normal motions are coupled through the metric and a realization's outcome depends on the ratio
// r = k_floor/k_wall; with r = 1 the problem is symmetric about
// the bisector, so the outcome lies on it and energy returns it as the reversal.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <numbers>

#include "crbench/cases/case.hpp"

namespace crbench::cases {

struct Corner : UnitMetric<2>, NoForce<2> {
  static constexpr int n = 2;
  static constexpr int m = 2;

  double angle;
  double v0;
  double stiffness_ratio;
  double exponent;

  explicit Corner(const ParamValues& p)
      : angle(p.at("angle")),
        v0(p.at("v0")),
        stiffness_ratio(p.at("stiffness_ratio")),
        exponent(p.at("exponent")) {}

  static CaseInfo info() {
    return {
        .name = "corner",
        .description =
            "Unit point in the plane hitting the corner of two walls at once: floor f0 = y >= 0 "
            "and wall f1 = x sin(angle) - y cos(angle) >= 0, meeting at the origin at the "
            "interior angle `angle`; no forces; started at the corner with velocity -v0 "
            "(cos(angle/2), sin(angle/2)). At angle = pi/2 the walls are orthogonal in the kinetic "
            "metric and every elastic law returns the velocity reversed, whatever the stiffness "
            "ratio; at other angles a realization's outcome depends on the ratio r = "
            "k_floor/k_wall and the springs' exponent (gamma N (-f)^eta on the floor, gamma N "
            "(-f)^eta / r on the wall).",
        .params = {{.name = "angle",
                    .default_value = std::numbers::pi / 2.0,
                    .min = 0.1,
                    .max = 3.0,
                    .unit = "radian",
                    .description = "interior angle between the floor and the wall"},
                   {.name = "v0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description = "speed of the point into the corner"},
                   {.name = "stiffness_ratio",
                    .default_value = 1.0,
                    .min = 1e-3,
                    .max = 1e3,
                    .description = "the realization's k_floor/k_wall: the wall's spring is "
                                   "gamma N / r; the ideal models do not depend on it"},
                   {.name = "exponent",
                    .default_value = 1.0,
                    .min = 1.0,
                    .max = 2.0,
                    .description = "the realization's contact law gamma N (-f)^eta: 1 linear, "
                                   "1.5 Hertz; the ideal models do not depend on it"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}},
        .constraint_units = {"length", "length"},
        .constraint_names = {"floor", "wall"},
        .constraints = m,
        .switches = 0,
        .solver_settings = {{"event-driven", "restitution", "1", "the corner's walls are elastic"},
                            {"moreau-jean", "restitution", "1", "the corner's walls are elastic"},
                            {"limit", "restitution", "1", "the corner's walls are elastic"}},
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1), std::sin(angle) * q(0) - std::cos(angle) * q(1));
  }

  // The realization's spring on each wall (Model::contact_law).
  ContactLaw contact_law(int k) const {
    return {.scale = k == 0 ? 1.0 : 1.0 / stiffness_ratio, .exponent = exponent};
  }

  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector2d::Zero(),
            .v = -v0 * Eigen::Vector2d(std::cos(angle / 2.0), std::sin(angle / 2.0))};
  }

  // The point leaves the corner and travels about v0.
  double horizon() const { return 1.0; }

  Facts facts() const {
    Facts facts;
    facts.values.push_back({.name = "speed after the impact (elastic)",
                            .value = v0,
                            .source = "no forces: an elastic impact keeps the kinetic energy"});
    if (angle == std::numbers::pi / 2.0) {
      facts.values.push_back(
          {.name = "x velocity after the impact (orthogonal walls)",
           .value = v0 * std::cos(angle / 2.0),
           .source = "walls orthogonal in the kinetic metric: two independent bounces"});
      facts.values.push_back(
          {.name = "y velocity after the impact (orthogonal walls)",
           .value = v0 * std::sin(angle / 2.0),
           .source = "walls orthogonal in the kinetic metric: two independent bounces"});
    }
    return facts;
  }
};

}  // namespace crbench::cases
