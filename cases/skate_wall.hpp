// skate-wall: a disk with a two-sided skate striking a line (Berezinskaya, Sorokina & Kugushev
// 2003, "On unilateral nonholonomic constraints", §7). q = (x, y, φ): the centre and the blade's
// heading; T = (ẋ² + ẏ²)/2 + J φ̇²/2, no forces; the blade cannot slip sideways,
// −ẋ sin φ + ẏ cos φ = 0, and the centre stays above the line, f = y ≥ 0.
//
// Derived from the set-up (the section's formulas were lost in the text). Between impacts the
// speed v along the blade is constant (the skate's reaction is normal to the blade) and φ = φ0 +
// ω t, so the centre moves on a straight line (ω = 0) or on a circle of radius |v/ω|:
//   x = (v/ω)(sin φ − sin φ_s),  y = y_s − (v/ω)(cos φ − cos φ_s)   from (x_s, y_s, φ_s).
// At an impact the impulse must keep the blade condition, so it acts along the blade: the
// admissible velocities are v (cos φ, sin φ) (and φ̇, which it does not touch), ẏ = v sin φ, and
// Newton's law ẏ⁺ = −e ẏ⁻ gives v⁺ = −e v⁻: the velocity of the centre is reversed and scaled by
// e (the paper: "the velocity of the centre changes to the opposite" for the elastic impact).
// Started at (0, 1) with φ0 = −π/4, speed v0 along the blade and φ̇ = ω.
#pragma once

#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include "crbench/cases/case.hpp"
#include "crbench/cases/skate_blade.hpp"

namespace crbench::cases {

struct SkateWall : NoForce<3>, SkateBlade, PlanarBodyMetric {
  static constexpr int m = 1;
  static constexpr double heading0 = -std::numbers::pi / 4.0;
  double v0, omega;

  explicit SkateWall(const ParamValues& p)
      : PlanarBodyMetric{p.at("J")}, v0(p.at("v0")), omega(p.at("omega")) {}

  static CaseInfo info() {
    return {
        .name = "skate-wall",
        .description =
            "A disk with a two-sided skate striking a line (Berezinskaya, Sorokina & Kugushev "
            "2003, section 7): q = (x, y, phi), T = (x'^2 + y'^2)/2 + J phi'^2/2, no forces, "
            "kinematic constraint -x' sin(phi) + y' cos(phi) = 0 and unilateral constraint "
            "f = y >= 0. Started at (0, 1) with phi = -pi/4, speed v0 along the blade and "
            "phi' = omega. The impulse of an impact acts along the blade: Newton's law with "
            "restitution e reverses the velocity of the centre and scales it by e.",
        .params = {{.name = "v0",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e3,
                    .min_inclusive = false,
                    .unit = "length/time",
                    .description = "initial speed along the blade (towards the line)"},
                   {.name = "omega",
                    .default_value = 0.0,
                    .min = -1e3,
                    .max = 1e3,
                    .unit = "1/time",
                    .description = "turning rate of the disk (constant)"},
                   {.name = "J",
                    .default_value = 1.0,
                    .min = 0.0,
                    .max = 1e6,
                    .min_inclusive = false,
                    .unit = "mass length^2",
                    .description = "moment of inertia of the disk (unit mass)"}},
        .dof = n,
        .coordinates = {{"x", "length"}, {"y", "length"}, {"phi", "angle (rad)"}},
        .constraint_units = {"length"},
        .constraint_names = {"wall"},
        .constraints = m,
        .switches = switches,
    };
  }

  template <class S>
  S potential(const Vec<S, n>& /*q*/, const S& /*t*/) const {
    return S(0.0);
  }

  template <class S>
  Vec<S, m> constraints(const Vec<S, n>& q, const S& /*t*/) const {
    return Vec<S, m>(q(1));
  }

  State initial_state() const {
    return {.t = 0.0,
            .q = Eigen::Vector3d(0.0, 1.0, heading0),
            .v = Eigen::Vector3d(v0 * std::cos(heading0), v0 * std::sin(heading0), omega)};
  }

  double horizon() const { return 3.0; }

  // The free skate from the start: q(t) before any impact.
  Eigen::Vector3d free_position(double t) const {
    const double phi = heading0 + omega * t;
    if (omega == 0.0) {
      return {v0 * std::cos(heading0) * t, 1.0 + v0 * std::sin(heading0) * t, heading0};
    }
    return {(v0 / omega) * (std::sin(phi) - std::sin(heading0)),
            1.0 - (v0 / omega) * (std::cos(phi) - std::cos(heading0)), phi};
  }

  // The first zero of y on the horizon, bracketed on a fine grid and refined by TOMS 748.
  std::optional<double> impact_time() const {
    constexpr int cells = 4096;
    double t_prev = 0.0, y_prev = free_position(0.0)(1);
    for (int i = 1; i <= cells; ++i) {
      const double t = horizon() * i / cells;
      const double y = free_position(t)(1);
      if (y <= 0.0 && y_prev > 0.0) {
        if (y == 0.0) return t;
        std::uintmax_t iterations = 200;
        const auto [lo, hi] = boost::math::tools::toms748_solve(
            [this](double s) { return free_position(s)(1); }, t_prev, t, y_prev, y,
            boost::math::tools::eps_tolerance<double>(52), iterations);
        return 0.5 * (lo + hi);
      }
      t_prev = t;
      y_prev = y;
    }
    return std::nullopt;
  }

  Facts facts() const {
    Facts facts;
    const std::optional<double> t_impact = impact_time();
    const double until = t_impact.value_or(horizon());
    facts.trajectories.push_back(
        {.model = "classical",
         .source = "the free skate on its line or circle (section 7), up to the first impact",
         .q = [this, until](double t, double) -> std::optional<Eigen::VectorXd> {
           if (t < 0.0 || t > until) return std::nullopt;
           return Eigen::VectorXd(free_position(t));
         }});
    if (t_impact) {
      const double phi = heading0 + omega * *t_impact;
      facts.values.push_back({.name = "impact time",
                              .value = *t_impact,
                              .source = "the first zero of y on the free skate's path"});
      facts.values.push_back({.name = "x' before the impact",
                              .value = v0 * std::cos(phi),
                              .source = "v0 cos(phi) at the impact; after it -e times this"});
      facts.values.push_back({.name = "y' before the impact",
                              .value = v0 * std::sin(phi),
                              .source = "v0 sin(phi) at the impact; after it -e times this"});
    }
    facts.values.push_back({.name = "energy",
                            .value = 0.5 * v0 * v0 + 0.5 * inertia * omega * omega,
                            .source = "T at t = 0, kept by an elastic impact (e = 1)"});
    return facts;
  }
};

}  // namespace crbench::cases
